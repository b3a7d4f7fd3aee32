#!/usr/bin/env bash
# The C++ engine against the PyTorch module on the same model file, same
# machine, same run: words/second at n = 64 and 1024 and the time for one word
# of length LONG (default 100000). Ratios are engine / PyTorch (higher is
# better for words/second, lower for time).
# Usage: benchmarks/engine_vs_torch.sh [MODEL.safetensors] [LONG]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD:-$root/build}"
model="${1:-}"
long="${2:-100000}"
if [ -z "$model" ]; then
  tmp="$(mktemp -d)"
  "$build/tests/softhat_make_models" "$tmp" 1 2026  # a seeded random model
  model="$tmp/random_0.safetensors"
fi
cpp="$("$build/benchmarks/softhat_bench_engine" "$model" --long "$long")"
py="$(/usr/bin/python3 "$root/benchmarks/torch_bench.py" "$model" --long "$long")"
/usr/bin/python3 - "$cpp" "$py" "$model" <<'PY'
import json, sys
cpp, py, model = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
print(f"model: {model} (PyTorch threads: {py['torch_threads']}, engine: 1 thread)")
print(f"{'measure':<26}{'engine':>14}{'PyTorch':>14}{'ratio':>10}")
for k in ("words_per_second_n64", "words_per_second_n1024"):
    print(f"{k:<26}{cpp[k]:>14.1f}{py[k]:>14.1f}{cpp[k] / py[k]:>10.2f}")
k = f"seconds, one word n={cpp['long_n']}"
print(f"{k:<26}{cpp['long_seconds']:>14.2f}{py['long_seconds']:>14.2f}{cpp['long_seconds'] / py['long_seconds']:>10.2f}")
print(json.dumps({"engine": cpp, "torch": py}))
PY
