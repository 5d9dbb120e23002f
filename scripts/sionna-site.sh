# Sourced: puts Sionna 2.2 on the Python path, offline, from the wheels of
# the git-ignored folder .deps/wheels (scripts/device-deps.sh --wheels fills
# it: Sionna and the pure-Python / matplotlib packages it imports; torch,
# numpy and scipy must be installed already). Installs them into a temporary
# target folder, $sionna_site, which the caller removes; exports PYTHONPATH
# and a matplotlib set-up that needs no display. Returns 2 with a message
# when there are no wheels.
#   source scripts/sionna-site.sh; sionna_site_setup [PYTHON] || exit $?
sionna_site_setup() {
  local python=${1:-python3} root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  local wheels=("$root"/.deps/wheels/*.whl)
  [ -e "${wheels[0]}" ] || { echo "sionna-site: no wheels in $root/.deps/wheels (scripts/device-deps.sh --wheels)" >&2; return 2; }
  sionna_site=$(mktemp -d)
  if "$python" -m pip --version >/dev/null 2>&1; then
    "$python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps \
      --target "$sionna_site" "${wheels[@]}"
  else # no pip: a wheel of these packages is a zip of what goes on the path
    "$python" -c 'import sys, zipfile; [zipfile.ZipFile(w).extractall(sys.argv[1]) for w in sys.argv[2:]]' \
      "$sionna_site" "${wheels[@]}"
  fi
  export PYTHONPATH="$sionna_site${PYTHONPATH:+:$PYTHONPATH}"
  # matplotlib is imported, never drawn: no display, no font cache in $HOME
  export MPLBACKEND=Agg MPLCONFIGDIR="$sionna_site/.mpl"
}
