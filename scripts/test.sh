#!/usr/bin/env bash
# Set up, build, and run the whole test suite (GPU tests skip without a GPU;
# without a GPU driver the CUDA backend and its tests are not built unless
# OFDMSIM_CUDA=ON: see setup.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/setup.sh"
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
