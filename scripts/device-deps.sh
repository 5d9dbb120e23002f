#!/usr/bin/env bash
# Fills .deps/ (git-ignored) with the Debian packages a GPU machine lacks,
# unpacked with dpkg -x, so that scripts/gpu-check.sh can build there without
# a network: libconfig, Random123 and Jansson (headers and shared libraries).
#   bash scripts/device-deps.sh [DIR]      (default: .deps in the repository)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:-$root/.deps}
pkgs=(libconfig9 libconfig-dev librandom123-dev libjansson4 libjansson-dev)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "${pkgs[@]}" >/dev/null)
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest"; done
echo "device-deps: ${pkgs[*]} unpacked into $dest"
