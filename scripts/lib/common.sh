# SPDX-License-Identifier: MIT
#
# common.sh - what every script in scripts/ shares (source it after
# setting `prog`): one-line errors with exit 2, checks for root and for
# tools (naming the Debian package to install), and where the untorn
# binaries are (the build tree, else the installed ones on PATH).
# Sets: top (the tree or the installed share directory), UNTORN,
# UNTORN_FSCHECK, UNTORN_HDD (unless already set in the environment).

die() { echo "$prog: $*" >&2; exit 2; }

need_tool() {	# TOOL DEBIAN-PACKAGE
	command -v "$1" >/dev/null || die "$1 not found; install it: apt-get install $2"
}

need_root() {	# WHAT-FOR
	[ "$(id -u)" -eq 0 ] || die "needs root ($1); run it with sudo"
}

# python3 with matplotlib if there is one (Debian's lives in /usr/bin)
plot_python() {
	if python3 -c 'import matplotlib' 2>/dev/null; then
		echo python3
	elif [ -x /usr/bin/python3 ]; then
		echo /usr/bin/python3
	else
		echo python3
	fi
}

# the binary NAME from the build tree, else beside an installed copy
# (PREFIX/share/untorn -> PREFIX/bin), else from PATH, else the build
# tree's path (so the error names where it should be)
find_bin() {
	if [ -x "$top/build/$1" ]; then
		echo "$top/build/$1"
	elif [ -x "$top/../../bin/$1" ]; then
		(cd "$top/../../bin" && echo "$PWD/$1")
	elif command -v "$1" >/dev/null; then
		command -v "$1"
	else
		echo "$top/build/$1"
	fi
}

top=${top:-$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)}
UNTORN=${UNTORN:-$(find_bin untorn)}
UNTORN_FSCHECK=${UNTORN_FSCHECK:-$(find_bin untorn-fscheck)}
UNTORN_HDD=${UNTORN_HDD:-$(find_bin untorn-hdd)}
