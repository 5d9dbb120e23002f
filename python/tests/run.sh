#!/usr/bin/env bash
# The Python package's tests (pytest), as ctest's test_python runs them: over
# the built library ($OFDMSIM_LIBRARY) and program ($OFDMSIM), with the
# package's sources (python/src), no install needed. Exit 77 (skipped) only
# when no python3 here has numpy, pandas and pytest (scripts/setup.sh
# installs python3-numpy python3-pandas python3-pytest); GPU tests skip
# themselves without a GPU.
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# OFDMSIM_PYTHON_MODULES, OFDMSIM_PYTEST_PATHS: fewer modules for fewer
# tests (scripts/python-gpu-check.sh on a machine without pandas).
modules=${OFDMSIM_PYTHON_MODULES:-numpy pandas pytest}
py=""
for cand in ${OFDMSIM_PYTHON:-} python3 /usr/bin/python3; do
  command -v "$cand" >/dev/null 2>&1 || continue
  if "$cand" -c "import ${modules// /, }" >/dev/null 2>&1; then
    py=$cand
    break
  fi
done
if [ -z "$py" ]; then
  echo "test_python: skipped: no python3 with $modules" \
    "(scripts/setup.sh installs python3-numpy python3-pandas python3-pytest)"
  exit 77
fi
# A library built with AddressSanitizer (scripts/sanitize.sh) cannot be
# loaded into an interpreter that was not: the normal build runs these.
if [ -n "${OFDMSIM_LIBRARY:-}" ] && ldd "$OFDMSIM_LIBRARY" 2>/dev/null | grep -q libasan; then
  echo "test_python: skipped: $OFDMSIM_LIBRARY is built with AddressSanitizer, which python3 cannot load" \
    "(the normal build runs these tests)"
  exit 77
fi
export PYTHONPATH="$root/python/src${PYTHONPATH:+:$PYTHONPATH}"
cd "$root/python/tests" || exit 1
# shellcheck disable=SC2086
exec "$py" -m pytest -q -p no:cacheprovider "$@" ${OFDMSIM_PYTEST_PATHS:-.}
