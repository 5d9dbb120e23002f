#!/usr/bin/env bash
# Set up, build, and run the whole test suite (GPU tests skip without a GPU).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/setup.sh"
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
