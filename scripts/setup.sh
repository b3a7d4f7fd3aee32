#!/usr/bin/env bash
# Installs the Debian packages softhat needs (only those missing), then
# configures and builds it in ./build. Safe to run again: it does nothing
# that is already done.
# Usage: bash scripts/setup.sh [--tests] [extra cmake args]
#   --tests  also installs python3-numpy, python3-torch, python3-jsonschema and librsvg2-bin and builds
#            the tests and benchmarks; without it only the softhat binary is built
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libcli11-dev libeigen3-dev libre2-dev catch2 libfmt-dev
          nlohmann-json3-dev libtomlplusplus-dev libgmp-dev libssl-dev)
targets=(--target softhat)  # the first README command builds only what it runs
if [ "${1:-}" = "--tests" ]; then
  shift
  packages+=(python3 python3-numpy python3-torch python3-jsonschema librsvg2-bin)
  targets=()  # everything: the CLI, the tests, the benchmarks
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "softhat setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j"$(nproc)" "${targets[@]}"
