# Sourced by setup.sh and fuzz.sh: install_missing WHO PKG... installs with
# apt-get those of the Debian packages PKG that are not installed yet (sudo
# when not root), saying "WHO: installing ..." on stderr first; nothing when
# every one is there.
install_missing() {
  local who=$1 pkg
  shift
  local need=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
  done
  if [ ${#need[@]} -gt 0 ]; then
    echo "$who: installing ${need[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
  fi
}
