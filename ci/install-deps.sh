#!/usr/bin/env bash
# Installs everything the build and the tests need, from Debian packages only. Idempotent:
# when every package is already installed it does nothing (no apt-get update).
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  libboost-dev libmpfr-dev libgmp-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev
  libopenblas-dev
  python3-numpy   # tools/tests/trace_test.py: traces written by numpy itself
  chromium        # tools/tests/report_test.py: the HTML report renders in headless Chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
