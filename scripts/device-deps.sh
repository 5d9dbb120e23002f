#!/usr/bin/env bash
# Fills .deps/ (git-ignored) with the Debian packages a GPU machine lacks,
# unpacked with dpkg -x, so that scripts/gpu-check.sh can build there without
# a network: libconfig, Random123 and Jansson (headers and shared libraries).
# With --wheels also .deps/wheels: Sionna 2.2 (sionna-no-rt) and the packages
# it imports that a GPU machine with PyTorch lacks, as wheels for CPython
# 3.12 on x86-64 Linux, for scripts/bench-sionna.sh and the other side-by-side
# benches there (torch, numpy and scipy are the machine's own).
#   bash scripts/device-deps.sh [--wheels] [DIR]   (default: .deps in the repository)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
wheels=0
if [ "${1:-}" = --wheels ]; then wheels=1; shift; fi
dest=${1:-$root/.deps}
pkgs=(libconfig9 libconfig-dev librandom123-dev libjansson4 libjansson-dev)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "${pkgs[@]}" >/dev/null)
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest"; done
echo "device-deps: ${pkgs[*]} unpacked into $dest"
if [ $wheels = 1 ]; then
  w=(sionna-no-rt==2.2.0 importlib-resources matplotlib h5py contourpy cycler fonttools kiwisolver packaging
     pillow pyparsing python-dateutil six)
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --implementation cp --platform manylinux2014_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 -d "$dest/wheels" "${w[@]}"
  echo "device-deps: $(ls "$dest/wheels" | wc -l) wheels in $dest/wheels ($(du -sh "$dest/wheels" | cut -f1))"
fi
