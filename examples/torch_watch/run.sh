#!/usr/bin/env bash
# The transformer example of accucheck.torch.watch from a fresh clone, in one command: installs
# what the project needs (ci/install-deps.sh), makes the torch environment (ci/python-envs.sh
# torch: PyTorch 2.15, ~4 GB), builds the Python package and the CLI (which draws the HTML), and
# trains the model with 16 and 32 micro-batches per step in bf16 and fp32.
# Usage: examples/torch_watch/run.sh [OUT]   (default torch-watch-example; OUT/report.html)
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$(realpath -m "${1:-torch-watch-example}")"
bash ci/install-deps.sh
bash ci/python-envs.sh torch
cmake --preset default >/dev/null
cmake --build --preset default --target _accucheck accucheck
PYTHONPATH="$PWD/build/python" ACCUCHECK_CLI="$PWD/build/accucheck" \
  "${ACCUCHECK_ENVS:-$PWD/.envs}/torch/bin/python" examples/torch_watch/transformer.py --out "$out"
