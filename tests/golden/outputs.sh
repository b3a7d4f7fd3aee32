#!/usr/bin/env bash
# Byte-identical outputs across refactors (issue 17). Runs a fixed command
# set and prints one "sha256  name" line per output. With --check FILE it
# compares against the recorded sums and exits 1 naming every difference.
# Usage: outputs.sh SOFTHAT [--check SUMS]
set -euo pipefail
softhat="$1"; shift
check=""
if [ "${1:-}" = "--check" ]; then check="$2"; fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

run() {  # run NAME CMD...: stdout of CMD is output NAME
  local name="$1"; shift
  "$@" > "$name" 2> "$name.stderr" || { echo "golden: '$name' failed: $(cat "$name.stderr")" >&2; exit 3; }
}

run verify-all "$softhat" verify --all
run verify-all-threads1 "$softhat" verify --all --threads 1
"$softhat" verify --all --exhaustive 6 --lengths 40 --per-length 20 --mode hard --json verify-hard.json > verify-hard 2>/dev/null
run generate-stdout "$softhat" generate a-since-b --lengths 4-9 --per-length 10
"$softhat" generate flip-flop --split train:2-8 --split test:9-12:48:border --per-length 6 --out corpus >/dev/null 2>&1
for f in corpus/*; do cp "$f" "generate-dir-$(basename "$f")"; done
"$softhat" compile a-since-b -o m1.safetensors 2>/dev/null >/dev/null
"$softhat" compile dyck-2 -o m2.safetensors 2>/dev/null >/dev/null
"$softhat" compile 04.04.SF.0.0.6 -o m3.safetensors 2>/dev/null >/dev/null
"$softhat" compile --formula 'G(a -> F b)' --alphabet abc -o m4.safetensors 2>/dev/null >/dev/null
run simulate-a-since-b "$softhat" simulate a-since-b --lengths 0-6,32
run simulate-dyck-2 "$softhat" simulate dyck-2 --lengths 0-8,64 --per-length 10
run sweep-third-last-a "$softhat" sweep third-last-a --lengths 16,64,256 --per-length 10
run analyze-att "$softhat" analyze 04.04.SF.0.0.6

rm -f ./*.stderr
rm -rf corpus
if [ -n "$check" ]; then
  sha256sum --quiet -c "$check"
else
  sha256sum -- * | LC_ALL=C sort -k2
fi
