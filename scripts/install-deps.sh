#!/bin/sh
# install-deps.sh [GROUP...] - installs the Debian packages pagesim needs, only those missing.
# No GROUP: building, the man pages and the test suite.  Groups for more:
#   install-test  what the install tests use: man-db, groff-base, bash-completion
#   deb           building the Debian package: debhelper, dpkg-dev (and install-test's)
# PAGESIM_EXTRA_PKGS adds packages by name.
set -e
PKGS="gcc python3 meson ninja-build pkg-config libtraceevent-dev libtracefs-dev libtracecmd-dev libzstd-dev zlib1g-dev liblzma-dev libjson-c-dev nettle-dev zstd gzip xz-utils trace-cmd linux-perf scdoc gnuplot-nox"
for g in "$@"; do
	case $g in
	install-test) PKGS="$PKGS man-db groff-base bash-completion" ;;
	deb) PKGS="$PKGS man-db groff-base bash-completion debhelper dpkg-dev" ;;
	*) echo "install-deps.sh: unknown group '$g' (install-test, deb)" >&2; exit 2 ;;
	esac
done
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
