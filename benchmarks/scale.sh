#!/usr/bin/env bash
# The benchmark-scale table (docs/performance.md), one command, one run:
#   (1) softhat_bench_scale: every catalogue LTL language and 20 MLRegTest
#       sample automata (smallest to largest model): the table-driven DFA,
#       the engine on 1 and 2 threads (words of lengths 20-50, best of three
#       passes after a warm-up, each pass repeating the words for about a
#       quarter of a second), one word of n = 10^4 (best of three runs after a
#       warm-up run) and 10^6 (one run); nonzero weights;
#   (2) GNU grep's DFA matcher (grep -E -x -c with the language's regex) on
#       the same words (repeated to 5 million symbols), best of three
#       (catalogue languages: they have regexes);
#   (3) the numpy reference and PyTorch (batches of 64 words of one length,
#       2 threads) on the same weights (benchmarks/python_scale.py), against
#       the engine on 1 thread and on 2 (the same cores as PyTorch's);
#   (4) verify --att (the whole sample) --mlregtest-splits small, 2 threads:
#       compile, generate and evaluate every automaton, and the projected time
#       for MLRegTest's 1,410 star-free automata.
# Prints a Markdown table and writes every number as JSON to $OUT (default
# build/benchmarks/scale.json). Needs a built tree (bash scripts/setup.sh
# --tests). About 15 minutes on 2 cores (--quick: about 4).
# Usage: benchmarks/scale.sh [--quick]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD:-$root/build}"
out="${OUT:-$build/benchmarks/scale.json}"
quick="${1:-}"
cli="$build/softhat"
py=/usr/bin/python3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$(dirname "$out")"

echo "== (1) engine and minimal DFA ($([ "$quick" = --quick ] && echo quick || echo full))" >&2
"$build/benchmarks/softhat_bench_scale" $quick --export "$tmp/m" > "$tmp/engine.jsonl"

echo "== (2) GNU grep -E -x -c on the same words" >&2
: > "$tmp/grep.jsonl"
for words in "$tmp"/m/*.words; do
  name="$(basename "$words" .words)"
  regex="$("$cli" show "$name" 2>/dev/null | sed -n 's/^regex: *//p')" || true
  [ -n "$regex" ] && [ "$regex" != "-" ] || continue
  # The words repeated to at least 5 million symbols, so that grep's start-up
  # (milliseconds) does not dominate; its count is divided back.
  one=$(($(wc -c < "$words") - $(wc -l < "$words")))
  copies=$(( (5000000 + one - 1) / one ))
  for ((k = 0; k < copies; ++k)); do cat "$words"; done > "$tmp/g.words"
  symbols=$((one * copies))
  best=""
  for _ in 1 2 3; do
    start=$(date +%s.%N)
    LC_ALL=C grep -E -x -c "$regex" "$tmp/g.words" > "$tmp/count" || true
    secs=$(awk "BEGIN {print $(date +%s.%N) - $start}")
    best=$(awk "BEGIN {b = \"$best\"; print (b == \"\" || $secs < b) ? $secs : b}")
  done
  printf '{"model": "%s", "grep_symbols_per_second": %s, "grep_accepted": %s}\n' \
    "$name" "$(awk "BEGIN {print $symbols / $best}")" "$(( $(cat "$tmp/count") / copies ))" >> "$tmp/grep.jsonl"
done

echo "== (3) numpy and PyTorch on the same weights" >&2
seconds=5
[ "$quick" = --quick ] && seconds=2
$py "$root/benchmarks/python_scale.py" "$tmp"/m/*.safetensors --words "$tmp/m" --seconds "$seconds" \
  --torch-threads 2 > "$tmp/python.jsonl"

echo "== (4) verify --att (the MLRegTest sample) --mlregtest-splits small --threads 2" >&2
start=$(date +%s.%N)
"$cli" -q verify --att "$root/../shared/data/mlregtest" --mlregtest-splits small --threads 2 \
  --out "$tmp/rows.jsonl" > "$tmp/verify.txt" 2> "$tmp/verify.err" || true
secs=$(awk "BEGIN {print $(date +%s.%N) - $start}")
cat "$tmp/verify.txt" "$tmp/verify.err" >&2

$py - "$out" "$tmp" "$secs" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'PY'
import json, os, platform, sys
out, tmp, verify_seconds, commit = sys.argv[1:]
def rows(name):
    with open(os.path.join(tmp, name)) as f:
        return {r["model"]: r for r in map(json.loads, f)}
engine, grep, python = rows("engine.jsonl"), rows("grep.jsonl"), rows("python.jsonl")
with open(os.path.join(tmp, "rows.jsonl")) as f:
    scale = [json.loads(l) for l in f]
checked = [r for r in scale if r["status"] in ("agree", "disagree")]
def m(x):
    return f"{x / 1e6:.3g}M" if x >= 1e5 else f"{x / 1e3:.3g}k" if x >= 100 else f"{x:.3g}"
print("| model | kind | DFA states | layers | heads | width | nonzero weights | DFA sym/s | grep sym/s | "
      "engine 1 thr | engine 2 thr | DFA / engine | grep / engine | n=10^4 | n=10^6 | numpy | PyTorch | "
      "engine 1 thr / PyTorch | engine 2 thr / PyTorch |")
print("|" + "---|" * 19)
for name, e in engine.items():
    g, p = grep.get(name), python.get(name, {})
    e2 = e["engine_2threads_symbols_per_second"]
    torch = p.get("torch_symbols_per_second")
    print(f"| {name} | {e['kind']} | {e['dfa_states']} | {e['layers']} | {e['heads']} | {e['d_model']} | "
          f"{e['nonzero_weights']} | {m(e['dfa_symbols_per_second'])} | "
          f"{m(g['grep_symbols_per_second']) if g else '-'} | {m(e['engine_symbols_per_second'])} | {m(e2)} | "
          f"{e['dfa_symbols_per_second'] / e2:.0f}x | "
          f"{(str(round(g['grep_symbols_per_second'] / e2, 1)) + 'x') if g else '-'} | "
          f"{m(e['n1e4_symbols_per_second'])} | {m(e['n1e6_symbols_per_second'])}{'' if e['n1e6_measured'] else ' (projected)'} | "
          f"{m(p['numpy_symbols_per_second']) if p.get('numpy_symbols_per_second') else '-'} | "
          f"{m(torch) if torch else '-'} | {(str(round(e['engine_symbols_per_second'] / torch, 1)) + 'x') if torch else '-'} | "
          f"{(str(round(e2 / torch, 1)) + 'x') if torch else '-'} |")
per = float(verify_seconds) / max(1, len(scale))
print()
print(f"verify --att (sample, {len(scale)} files) --mlregtest-splits small --threads 2: {float(verify_seconds):.1f} s; "
      f"{len(checked)} compiled and evaluated on {sum(r['words'] for r in checked)} words, "
      f"{sum(r['status'] == 'agree' for r in checked)} agree; {per:.2f} s per file: 1,410 automata in "
      f"{1410 * per / 60:.1f} min")
disagreements = sum(e["disagreements"] for e in engine.values())
grep_bad = [n for n, g in grep.items() if n in engine and g["grep_accepted"] != engine[n]["accepted"]]
print(f"grep's accepted count differs from the DFA's in: {grep_bad or 'none'}")
torch_bad = [n for n, p in python.items() if p.get("torch_agrees") not in (None, 1.0)]
print(f"engine vs DFA disagreements: {disagreements}; PyTorch vs numpy verdict mismatches in: {torch_bad or 'none'}")
print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}; commit {commit}")
with open(out, "w") as f:
    json.dump({"commit": commit, "engine": list(engine.values()), "grep": list(grep.values()),
               "python": list(python.values()), "verify_seconds": float(verify_seconds), "verify_rows": scale}, f,
              indent=2)
print(f"results: {out}")
PY
