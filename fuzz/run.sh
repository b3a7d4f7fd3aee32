#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, AddressSanitizer + UBSan) in
# build-fuzz and runs each for a fixed time from its seed corpus, with its
# dictionary. A crash, a sanitizer report or a violated property stops the
# target; the reproducer is written to build-fuzz/crashes/.
# Usage: fuzz/run.sh [SECONDS per target (default 60)] [TARGET...]
#   FUZZ_RUNS=N stops a target after N executions (within SECONDS).
#   FUZZ_SEED=S seeds libFuzzer's mutations (default 1, so a CI run is reproducible; 0 = random).
#   targets: parse catalog words model compile regex att merge rasp
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(parse catalog words model compile regex att merge rasp)
build="${FUZZ_BUILD:-$root/build-fuzz}"

if ! command -v clang++-14 >/dev/null || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang-14 libclang-rt-14-dev >/dev/null
fi
if [ ! -f "$build/CMakeCache.txt" ]; then  # an existing build (scripts/hardening.sh's) keeps its settings
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOFTHAT_FUZZ=ON \
    -DSOFTHAT_SANITIZE=address,undefined -DSOFTHAT_BUILD_TESTS=OFF -DSOFTHAT_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}")

declare -A dict=([parse]=formula [compile]=formula [catalog]=catalog [words]=words [model]=model [regex]=regex [att]=att [merge]=merge [rasp]=rasp)
mkdir -p "$build/crashes"
status=0
for t in "${targets[@]}"; do
  work="$build/corpus/$t"  # seeds are copied: the repository's corpus is never rewritten
  mkdir -p "$work"
  cp -n "$root/fuzz/corpus/$t/"* "$work/" 2>/dev/null || true
  log="$build/fuzz_$t.log"
  echo "== fuzz_$t: ${seconds} s"
  if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     "$build/fuzz/fuzz_$t" "$work" -dict="$root/fuzz/dict/${dict[$t]}.dict" -max_total_time="$seconds" -seed="${FUZZ_SEED:-1}" \
       ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -max_len=4096 -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
       -artifact_prefix="$build/crashes/${t}-" >"$log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed 's/^/   /'
  else
    status=1
    echo "   FAILED (log: $log)"
    grep -E "ERROR|property violated|SUMMARY|Test unit written" "$log" | head -10 | sed 's/^/   /'
  fi
done
exit $status
