#!/usr/bin/env bash
# The benchmark suite, one command, one run (comparisons are same machine,
# same run). Prints tables and writes every number as JSON to $OUT (default
# build/benchmarks/results.json) so runs can be compared across commits.
#   (a) classify words/second at n = 64 and 1024 for three catalogue models,
#       engine against the PyTorch module on the same exported weights
#       (PyTorch batched: 64 words of one length per forward call), ratio;
#   (b) time and peak memory of `softhat classify` on one word of length
#       10^4, 10^5, 10^6 (compiled c-flanked: since and until heads);
#   (c) exhaustive verification time, every binary word up to 16, 18, 20, 22
#       (contains-ab, --threads = the cores);
#   (d) the dense O(n^2) path's FLOP/s against this machine's measured peak.
# Needs a built tree (bash scripts/setup.sh --tests); about 5 minutes on 2 cores.
# Usage: benchmarks/run_all.sh [--quick]   (--quick: (c) up to 18 only)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD:-$root/build}"
out="${OUT:-$build/benchmarks/results.json}"
quick="${1:-}"
cli="$build/softhat"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

echo "== (a) classify: engine vs PyTorch, words/second"
a_json="["
for m in a-since-b c-flanked majority; do
  "$cli" compile "$m" -o "$tmp/$m.safetensors" 2>/dev/null
  cpp="$("$build/benchmarks/softhat_bench_engine" "$tmp/$m.safetensors" --long 1000)"
  torch="$($py "$root/benchmarks/torch_bench.py" "$tmp/$m.safetensors" --long 1000)"
  a_json+="{\"model\": \"$m\", \"engine\": $cpp, \"torch\": $torch},"
done
a_json="${a_json%,}]"
$py - "$a_json" <<'PY'
import json, sys
rows = json.loads(sys.argv[1])
print(f"{'model':<12}{'n':>6}{'engine w/s':>14}{'PyTorch w/s':>14}{'ratio':>9}")
for r in rows:
    for n in (64, 1024):
        k = f"words_per_second_n{n}"
        e, t = r["engine"][k], r["torch"][k]
        print(f"{r['model']:<12}{n:>6}{e:>14.1f}{t:>14.1f}{e / t:>9.1f}x")
print(f"(PyTorch threads: {rows[0]['torch']['torch_threads']}; engine: 1 thread)")
PY

echo "== (b) one long word: softhat classify c-flanked"
b_json="["
for n in 10000 100000 1000000; do
  $py -c "import random; random.seed($n); print(''.join(random.choice('abc') for _ in range($n)))" > "$tmp/w$n"
  /usr/bin/time -f "%e %M" -o "$tmp/t$n" "$cli" classify c-flanked --format jsonl < "$tmp/w$n" > "$tmp/o$n"
  read -r secs kb < "$tmp/t$n"
  printf "n = %-8s %6.2f s  %8.1f MB peak\n" "$n" "$secs" "$(awk "BEGIN {print $kb / 1024}")"
  b_json+="{\"n\": $n, \"seconds\": $secs, \"peak_kb\": $kb},"
done
b_json="${b_json%,}]"

echo "== (c) exhaustive verification, all binary words up to N (contains-ab, $(nproc) threads)"
c_json="["
lens="16 18 20 22"
[ "$quick" = "--quick" ] && lens="16 18"
for N in $lens; do
  start=$(date +%s.%N)
  "$cli" verify contains-ab --max-len "$N" --lengths 10 --samples 1 > "$tmp/v$N"
  secs=$(awk "BEGIN {print $(date +%s.%N) - $start}")
  words=$(awk 'NR==2 {print $6}' "$tmp/v$N")
  printf "N = %-3s %9s words  %7.2f s\n" "$N" "$words" "$secs"
  c_json+="{\"max_len\": $N, \"words\": $words, \"seconds\": $secs},"
done
c_json="${c_json%,}]"

echo "== (d) dense attention path vs measured peak (one thread)"
d_json="$("$build/benchmarks/softhat_bench_flops")"
$py -c "import json,sys; d=json.loads(sys.argv[1]); print(f\"peak (Eigen GEMM) {d['peak_gflops']:.2f} GFLOP/s; dense path at n = {d['dense_n']}: {d['dense_gflops']:.2f} GFLOP/s = {100*d['fraction_of_peak']:.1f}% of peak\")" "$d_json"

mkdir -p "$(dirname "$out")"
$py - "$out" "$a_json" "$b_json" "$c_json" "$d_json" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" <<'PY'
import json, sys
out, a, b, c, d, commit = sys.argv[1:]
json.dump({"commit": commit, "classify_vs_torch": json.loads(a), "long_word": json.loads(b),
           "exhaustive_verify": json.loads(c), "dense_flops": json.loads(d)}, open(out, "w"), indent=2)
print(f"results: {out}")
PY
