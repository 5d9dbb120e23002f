#!/usr/bin/env bash
# Installs the Debian packages ofdmsim needs (when missing) and builds it in
# Release into ${OFDMSIM_BUILD:-build}. Sourced by demo.sh, test.sh and
# sanitize.sh. OFDMSIM_CUDA=ON|OFF|AUTO overrides the choice of the CUDA
# backend (default: built only where there is a GPU driver, see below);
# OFDMSIM_CMAKE_ARGS adds CMake arguments; OFDMSIM_TARGETS names the targets
# to build (default all).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${OFDMSIM_BUILD:-$root/build}

source "$root/scripts/packages.sh"
install_missing "ofdmsim setup" cmake make gcc pkg-config libconfig-dev libfftw3-dev librandom123-dev libjansson-dev \
  gnuplot-nox libopenmpi-dev openmpi-bin python3 python3-numpy python3-pandas python3-pytest python3-pip \
  python3-venv python3-setuptools python3-wheel

# The CUDA toolkit is used when present (it is found at /usr/local/cuda too).
export PATH="$PATH:/usr/local/cuda/bin"

# gpu_driver: does this machine have the NVIDIA driver, i.e. could a CUDA
# program run here at all? The test is the driver's user-space library,
# libcuda.so.1, which every CUDA program loads to reach a GPU: it is there on
# a GPU machine, in a container given the GPU (the container toolkit mounts
# it), and under WSL2 (/usr/lib/wsl/lib); the CUDA toolkit alone brings only
# a link-time stub (lib64/stubs/libcuda.so, no .so.1), so a GPU-less machine
# with nvcc has none. nvidia-smi is not mounted in every container, and WSL2
# has /dev/dxg, not /dev/nvidia*: neither is a sound test.
gpu_driver() {
  local ldconfig d paths=${LD_LIBRARY_PATH:-}
  ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
  "$ldconfig" -p 2>/dev/null | grep -q 'libcuda\.so\.1 ' && return 0
  for d in ${paths//:/ } /usr/lib/wsl/lib /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64; do
    [ -e "$d/libcuda.so.1" ] && return 0
  done
  return 1
}

# The CUDA backend: OFDMSIM_CUDA=ON, OFF or AUTO (CMake's option) when set;
# unset, AUTO on a machine with the driver and OFF without one, since there
# the CUDA objects (minutes of nvcc, most of a cold build) could never run.
# Always passed, so a build folder configured the other way before follows.
cuda=${OFDMSIM_CUDA:-}
if [ -z "$cuda" ]; then
  if gpu_driver; then
    cuda=AUTO
  else
    cuda=OFF
    if command -v nvcc >/dev/null; then
      echo "ofdmsim setup: no GPU driver here (no libcuda.so.1): building without the CUDA backend" \
        "(OFDMSIM_CUDA=ON builds it anyway)" >&2
    fi
  fi
fi
case $cuda in
  ON | OFF | AUTO) ;;
  *) echo "ofdmsim setup: OFDMSIM_CUDA=$cuda: ON, OFF or AUTO" >&2; exit 2 ;;
esac
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DOFDMSIM_CUDA="$cuda" ${OFDMSIM_CMAKE_ARGS:-} >/dev/null
# OFDMSIM_TARGETS: the targets to build (default all: the tests too).
# shellcheck disable=SC2086
cmake --build "$build" -j"$(nproc)" ${OFDMSIM_TARGETS:+--target $OFDMSIM_TARGETS}
