#!/usr/bin/env bash
# Installs everything the build and the tests need: Debian packages (apt-get), then the
# project's one Python interpreter for the build and the tests: a virtual environment made from
# Debian's /usr/bin/python3 with ci/python-requirements.txt installed from PyPI.
#
# Why a venv of Debian's interpreter: the `python3` first on PATH differs between machines (a
# pyenv build here); CMake is pointed at this venv (CMakeLists.txt, ACCUCHECK_PYTHON), never at
# whatever python3 a machine has. It holds no framework: PyTorch, JAX and MXNet each have their
# own environment at their newest release (ci/python-envs.sh, ci/envs/), where the CLI's --python
# worker runs their backend files.
# ACCUCHECK_VENV=DIR puts the venv elsewhere (default: .venv in the repository).
#
# Idempotent: nothing is installed when every package is present and the venv satisfies the
# requirements (no apt-get update, no download).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ python3 python3-venv
  python3-dev     # python/: Python.h (the extension module)
  libboost-dev libmpfr-dev libgmp-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev
  clang-14 libclang-rt-14-dev
  clang-format-14 clang-tidy-14  # ci/format.sh (ctest format), .clang-tidy
  libopenblas-dev
  openmpi-bin libopenmpi-dev  # impls/thirdparty/openmpi.cpp: the real MPI_Allreduce backends
  libcli11-dev    # tools/: the command line (header-only CLI11)
  chromium        # tools/tests/report_test.py: the HTML report renders in headless Chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} Debian packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

venv="${ACCUCHECK_VENV:-$PWD/.venv}"
requirements=ci/python-requirements.txt
stamp="$venv/.accucheck-requirements"
# A venv from the days of Debian's python3-torch (it saw Debian's site-packages) is made again.
if [ -f "$venv/pyvenv.cfg" ] && grep -q '^include-system-site-packages = true' "$venv/pyvenv.cfg"; then
  echo "install-deps: remaking the Python venv $venv without Debian's site-packages"
  rm -rf "$venv"
fi
if [ -x "$venv/bin/python3" ] && [ -f "$stamp" ] && cmp -s "$requirements" "$stamp"; then
  echo "install-deps: Python venv $venv up to date"
  exit 0
fi
if [ ! -x "$venv/bin/python3" ]; then
  echo "install-deps: creating the Python venv $venv from /usr/bin/python3"
  /usr/bin/python3 -m venv "$venv"
fi
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$stamp"
echo "install-deps: Python venv $venv: $("$venv/bin/python3" -c 'import sys, numpy; print("Python", sys.version.split()[0], "numpy", numpy.__version__)')"
