#!/usr/bin/env bash
# Two softhat binaries on the same model files and words, in one run: the
# engine of a baseline build (an earlier commit, built elsewhere) against the
# current one. For each model, softhat_bench_scale --export writes its model
# file and its seeded words of lengths 20-50; the words are repeated to about
# SYMBOLS symbols (default 10^6), and each binary classifies them with
# `softhat run --model` (one thread, I/O included), alternating, best of
# three. The two outputs must be byte-identical. Prints a Markdown table:
# symbols per second for each binary and the ratio.
# With --compile, each binary runs the model it compiles itself (`softhat
# compile NAME`, or `--att` for an MLRegTest name), so the ratio measures a
# compiler change and the engine together; the table adds both models'
# layers and nonzero weights, and the verdicts must still be identical.
# Usage: benchmarks/engine_ab.sh [--compile] BASELINE_SOFTHAT [MODEL ...]
#   (default models: flip-flop, ab-star, dyck-1-depth-2, 64.64.SP.2.1.0,
#   04.04.SP.4.1.2, 16.16.PT.6.1.4)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD:-$root/build}"
symbols="${SYMBOLS:-1000000}"
own=""
if [ "${1:-}" = "--compile" ]; then own=1; shift; fi
base="${1:?usage: engine_ab.sh [--compile] BASELINE_SOFTHAT [MODEL ...]}"
shift
models=("$@")
((${#models[@]})) || models=(flip-flop ab-star dyck-1-depth-2 64.64.SP.2.1.0 04.04.SP.4.1.2 16.16.PT.6.1.4)
new="$build/softhat"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

best_of_three() {  # binary model words -> seconds (best of three), output in $tmp/out.<binary tag>
  local bin="$1" model="$2" words="$3" tag="$4" best="" start secs
  for _ in 1 2 3; do
    start=$(date +%s.%N)
    "$bin" run --model "$model" < "$words" > "$tmp/out.$tag"
    secs=$(awk "BEGIN {print $(date +%s.%N) - $start}")
    best=$(awk "BEGIN {b = \"$best\"; print (b == \"\" || $secs < b) ? $secs : b}")
  done
  echo "$best"
}

mlregtest="$root/../shared/data/mlregtest"
size() {  # model file -> "layers / nonzero weights"
  "$new" show --model "$1" --json | /usr/bin/python3 -c '
import json, sys
m = json.load(sys.stdin)["model"]
print(len(m["config"]["layers"]), "/", m["nonzero_weights"])'
}
if [ -n "$own" ]; then
  echo "| model | symbols | baseline layers / nonzeros | current layers / nonzeros | baseline sym/s | current sym/s | current / baseline |"
  echo "|---|---|---|---|---|---|---|"
else
  echo "| model | symbols | baseline sym/s | current sym/s | current / baseline |"
  echo "|---|---|---|---|---|"
fi
for name in "${models[@]}"; do
  "$build/benchmarks/softhat_bench_scale" --quick --only "$name" --export "$tmp/m" > /dev/null
  model_base="$tmp/m/$name.safetensors" model_new="$tmp/m/$name.safetensors"
  if [ -n "$own" ]; then
    src=("$name")
    [ -f "$mlregtest/$name.att" ] && src=(--att "$mlregtest/$name.att")
    model_base="$tmp/base.safetensors" model_new="$tmp/new.safetensors"
    "$base" compile "${src[@]}" -o "$model_base" 2>/dev/null
    "$new" compile "${src[@]}" -o "$model_new" 2>/dev/null
  fi
  one=$(($(wc -c < "$tmp/m/$name.words") - $(wc -l < "$tmp/m/$name.words")))
  copies=$(( (symbols + one - 1) / one ))
  for ((k = 0; k < copies; ++k)); do cat "$tmp/m/$name.words"; done > "$tmp/w"
  total=$((one * copies))
  tb=$(best_of_three "$base" "$model_base" "$tmp/w" base)
  tn=$(best_of_three "$new" "$model_new" "$tmp/w" new)
  cmp -s "$tmp/out.base" "$tmp/out.new" || { echo "engine_ab: $name: the two binaries' outputs differ" >&2; exit 1; }
  sizes=""
  [ -n "$own" ] && sizes="$(size "$model_base") | $(size "$model_new") | "
  awk -v n="$name" -v s="$total" -v z="$sizes" -v b="$tb" -v c="$tn" \
    'BEGIN {printf "| %s | %d | %s%.3gM | %.3gM | %.2fx |\n", n, s, z, s / b / 1e6, s / c / 1e6, b / c}'
done
