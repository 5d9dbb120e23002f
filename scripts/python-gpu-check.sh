#!/usr/bin/env bash
# The Python package on a GPU machine: builds libofdmsim with the CUDA backend
# (the 2x2 and 4x4 kernel shapes the tests and the bench use), runs the
# package's tests there (python/tests/test_gpu.py: the LLRs in device memory,
# into PyTorch and CuPy by DLPack without a copy, against the CPU backend),
# then the Link.batch benchmark (bench/python_link.py, beside Sionna when
# .deps/wheels holds it: scripts/device-deps.sh --wheels).
#
#   bash scripts/python-gpu-check.sh [DEPS_PREFIX]
#
# DEPS_PREFIX (default "$PWD/.deps", scripts/device-deps.sh fills it) holds
# what the machine lacks. PYTHON_GPU_CHECK_NO_BENCH=1 skips the benchmark.
# Exit status: the tests' (0 when they passed).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${1:-$PWD/.deps}
prefix=$(cd "$prefix" 2>/dev/null && pwd || echo "$prefix")
build=${PYTHON_GPU_CHECK_BUILD_DIR:-$root/build-pygpu}
export LD_LIBRARY_PATH="$prefix/usr/lib/x86_64-linux-gnu:$prefix/usr/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$PATH:/usr/local/cuda/bin"
export NCCL_NVLS_ENABLE=0

# PYTHON_GPU_CHECK_PREBUILT=1: $build already holds a CUDA build's ofdmsim and
# libofdmsim.so (scripts/gpu-check.sh passes its own build), nothing is built.
if [ "${PYTHON_GPU_CHECK_PREBUILT:-0}" != 1 ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DOFDMSIM_CUDA=ON -DOFDMSIM_MPI=OFF \
    -DOFDMSIM_CUDA_SHAPES="2x2;4x4" -DOFDMSIM_DEPS_PREFIX="$prefix" -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$build" -j"$(nproc)" --target ofdmsim ofdmsim_shared >/dev/null
fi
export OFDMSIM="$build/ofdmsim" OFDMSIM_LIBRARY="$build/libofdmsim.so"

echo "==== python tests (GPU tests included) ===="
rc=0
if python3 -c "import pandas" 2>/dev/null; then
  bash "$root/python/tests/run.sh" -v -rs || rc=$?
else # the GPU tests need NumPy alone
  echo "(no pandas here: the GPU tests only)"
  OFDMSIM_PYTHON_MODULES="numpy pytest" OFDMSIM_PYTEST_PATHS=test_gpu.py bash "$root/python/tests/run.sh" -v -rs || rc=$?
fi
if [ "${PYTHON_GPU_CHECK_NO_BENCH:-0}" != 1 ]; then
  echo "==== Link.batch -> PyTorch against the CLI (and Sionna's pipeline where .deps/wheels has it) ===="
  sionna=()
  source "$root/scripts/sionna-site.sh"
  if sionna_site_setup python3 2>/dev/null; then sionna=(--sionna); trap 'rm -rf "$sionna_site"' EXIT; fi
  python3 "$root/bench/python_link.py" --cli "$OFDMSIM" "${sionna[@]}" || rc=1
fi
exit "$rc"
