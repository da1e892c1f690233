#!/bin/sh
# install-deps.sh - installs the Debian packages pagesim needs, only those missing.
set -e
PKGS="gcc python3 meson ninja-build pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev libzstd-dev zstd trace-cmd libjson-c-dev libssl-dev"
[ -n "$PAGESIM_EXTRA_PKGS" ] && PKGS="$PKGS $PAGESIM_EXTRA_PKGS"
missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "installing:$missing" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
