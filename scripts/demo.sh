#!/usr/bin/env bash
# Set up, build, and run the default simulation (on the GPU when there is one).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/setup.sh"
exec "$build/ofdmsim" "$root/configs/default.cfg" "$@"
