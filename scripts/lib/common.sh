# SPDX-License-Identifier: MIT
#
# common.sh - what every script in scripts/ shares (source it after
# setting `prog`): one-line errors with exit 2, checks for root and for
# tools (naming the Debian package to install), and where the untorn
# binaries are (the build tree, else the installed ones on PATH).
# Answers --version.  Sets: top (the tree or the installed share directory), UNTORN,
# UNTORN_FSCHECK, UNTORN_HDD (unless already set in the environment).

die() { echo "$prog: $*" >&2; exit 2; }

need_tool() {	# TOOL DEBIAN-PACKAGE
	command -v "$1" >/dev/null || die "$1 not found; install it: apt-get install $2"
}

need_root() {	# WHAT-FOR
	[ "$(id -u)" -eq 0 ] || die "needs root ($1); run it as root (a root shell, or sudo)"
}

# tool_name NAME: another of untorn's scripts as the user has it, for a
# fix to print: untorn-NAME when this script runs installed (as
# untorn-PROG), else its path in the checkout
tool_name() {
	case ${0##*/} in
	untorn-*) echo "untorn-$1" ;;
	*) echo "$top/scripts/$1" ;;
	esac
}

# usage: the script's header, its --help.  Run installed (as
# untorn-PROG), it names untorn's scripts as installed: every
# scripts/NAME of one of them reads untorn-NAME, and the lines that
# continue a USAGE line move a column left to stay under it
usage() {
	local names=""
	case ${0##*/} in
	untorn-*) names=$(cd "$top/scripts" && for f in *; do [ -f "$f" ] && [ -x "$f" ] && printf '%s ' "$f"; done) ;;
	esac
	sed -n '3,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' | awk -v names="$names" '
	function rename(s,	out, name) {
		out = ""
		while (match(s, /scripts\/[a-z][a-z0-9-]*/)) {
			name = substr(s, RSTART + 8, RLENGTH - 8)
			out = out substr(s, 1, RSTART - 1) (name in known ? "untorn-" name : substr(s, RSTART, RLENGTH))
			s = substr(s, RSTART + RLENGTH)
		}
		return out s
	}
	BEGIN { for (i = split(names, a, " "); i > 0; i--) known[a[i]] = 1 }
	!names { print; next }
	/^USAGE: / { block = 1; print rename($0); next }
	block && /^       / { print (/^       scripts\//) ? rename($0) : rename(substr($0, 2)); next }
	{ block = 0; print rename($0) }'
}

# fmt_secs S: "1:02:03", "4:05" or "6 s"
fmt_secs() {
	if [ "$1" -ge 3600 ]; then printf '%d:%02d:%02d' $(($1 / 3600)) $(($1 / 60 % 60)) $(($1 % 60))
	elif [ "$1" -ge 60 ]; then printf '%d:%02d' $(($1 / 60)) $(($1 % 60))
	else printf '%d s' "$1"; fi
}

# progress DONE TOTAL WHAT: a line on stderr before each step of a long
# job, "prog: [DONE/TOTAL] WHAT, 2:10 so far, about 6:30 left" (the mean
# step so far times the steps left), only when stderr is a terminal:
# CI logs stay as they were.  UNTORN_PROGRESS=1 forces it (the tests).
progress_t0=""
progress() {
	local now el left=""
	[ -t 2 ] || [ "${UNTORN_PROGRESS:-0}" = 1 ] || return 0
	now=$(date +%s)
	[ -n "$progress_t0" ] || progress_t0=$now
	el=$((now - progress_t0))
	[ "$1" -gt 0 ] && [ "$2" -gt "$1" ] && left=", about $(fmt_secs $((el * ($2 - $1) / $1))) left"
	printf '%s: [%d/%d] %s, %s so far%s\n' "$prog" $(($1 + 1)) "$2" "$3" "$(fmt_secs "$el")" "$left" >&2
}

# need_value OPTION ARGS...: the option has a value after it
need_value() {
	[ $# -ge 2 ] || die "$1 needs a value; see --help"
}

# need_uint OPTION VALUE [MIN]: a whole number, at least MIN (default 1)
need_uint() {
	case $2 in
	''|*[!0-9]*) die "$1 takes a whole number, not '$2'" ;;
	esac
	# beyond 18 digits the shell's arithmetic overflows
	[ ${#2} -le 18 ] || die "$1 $2 is too large; give a number under 10^18"
	[ "$2" -ge "${3:-1}" ] || die "$1 must be at least ${3:-1}, not $2"
}

# need_ulist OPTION VALUE: comma-separated whole numbers >= 1
need_ulist() {
	local v
	[ -n "$2" ] || die "$1 takes a list of numbers (1,4,16), not ''"
	for v in ${2//,/ }; do need_uint "$1" "$v"; done
}

# need_number OPTION VALUE: a number >= 0 (decimals allowed)
need_number() {
	[[ $2 =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "$1 takes a number, not '$2'"
}

# parse_size SIZE: its bytes on stdout, or fail.  The one rule for sizes
# in untorn (engine/base/parse.c states it; tests/size_test.sh holds this and
# the C parser to one table): digits, then nothing or B (bytes), or K, M,
# G, T (powers of 1024) alone or followed by B or iB, in any case: 512,
# 16k, 16KiB, 256M, 256MB, 1G, 1T.
parse_size() {
	local digits unit shift
	[[ ${1:-} =~ ^([0-9]{1,19})([A-Za-z]*)$ ]] || return 1
	digits=$((10#${BASH_REMATCH[1]}))
	unit=${BASH_REMATCH[2],,}
	case $unit in
	''|b) shift=0 ;;
	k|kb|kib) shift=10 ;;
	m|mb|mib) shift=20 ;;
	g|gb|gib) shift=30 ;;
	t|tb|tib) shift=40 ;;
	*) return 1 ;;
	esac
	[ "$digits" -ge 0 ] && [ $((digits >> (62 - shift))) -eq 0 ] || return 1
	echo $((digits << shift))
}

# need_size OPTION VALUE [VAR]: VALUE is a size of at least one byte;
# VAR, if given, gets it in bytes (pass bytes on: other tools read units
# otherwise -- to coreutils and fio "MB" is 1000^2)
need_size() {
	local bytes
	bytes=$(parse_size "$2") || die "$1 takes a size (512, 16k, 64M, 4GiB, 1T), not '$2'"
	[ "$bytes" -gt 0 ] || die "$1 must be at least 1 byte, not '$2'"
	[ -z "${3:-}" ] || printf -v "$3" '%s' "$bytes"
}

# human BYTES: "16 KiB", "256 MiB", "1.5 GiB" for messages
human() {
	awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u); i = 1
		while (b >= 1024 && i < 5) { b /= 1024; i++ }
		printf (b == int(b) ? "%d %s\n" : "%.1f %s\n"), b, u[i] }'
}

# jbd2_journal_mib RATE_MB_S COMMIT_S FS_MIB: the jbd2 journal of a
# data=journal filesystem as mkfs-journal sizes it (--journal-size auto):
# one transaction may grow to a quarter of the journal and, with the data
# journalled, holds every block written in a commit interval, so 4 x rate
# x commit; at least 64 MiB, at most a quarter of the filesystem
jbd2_journal_mib() {
	local j=$((4 * $1 * $2))
	[ "$j" -ge 64 ] || j=64
	[ "$j" -le $(($3 / 4)) ] || j=$(($3 / 4))
	echo "$j"
}

# jbd2_journal_why RATE_MB_S COMMIT_S FS_MIB: how jbd2_journal_mib came
# to its size, in words whose figures agree with it: "4 x 50 MB/s x 5 s
# = 1000 MiB", then the floor or the cap when one of them set it
jbd2_journal_why() {
	local j=$((4 * $1 * $2)) cap=$(($3 / 4))
	printf '4 x %s MB/s x %s s = %s MiB' "$1" "$2" "$j"
	[ "$j" -ge 64 ] || { printf ', raised to the 64 MiB floor'; j=64; }
	[ "$j" -le "$cap" ] || printf ', capped at %s MiB, a quarter of the %s MiB filesystem' "$cap" "$3"
}

# fstab_line DEVICE MOUNTPOINT FSTYPE LIVE-OPTIONS ADD-OPTIONS: the
# /etc/fstab line for a mounted filesystem, by the one rule untorn's
# tools share (untorn-fscheck --mysql prints the same, server_check.c):
# keep the mount's options (LIVE-OPTIONS: findmnt's OPTIONS, the
# mount's and the filesystem's), add ADD-OPTIONS (each replaces an
# option of its name: data=journal the data=ordered), and name the
# filesystem by UUID -- or, on a loop device, by its backing file with
# "loop" (nothing attaches a loop device at boot for a UUID).  rw,
# seclabel and "defaults" are dropped: they are what mount does anyway;
# of the atime options (noatime, relatime, ...) the first one counts;
# with data=journal, the nodelalloc and nodioread_nolock ext4 shows
# because data=journal implies them are left to it.
fstab_line() {
	local src uuid back o key out="" seen="," atime=""
	back=$(losetup -nO BACK-FILE "$1" 2>/dev/null | sed 's/ *$//')
	if [ -n "$back" ]; then
		src=$back out=loop seen=",loop,"
	else
		uuid=$(blkid -o value -s UUID "$1" 2>/dev/null)
		src=${uuid:+UUID=$uuid}
		src=${src:-$1}
	fi
	for o in ${4//,/ } ${5//,/ }; do
		case $o in rw|seclabel|defaults|loop) continue ;; esac
		case $o,$4,$5, in nodelalloc,*data=journal,*|nodioread_nolock,*data=journal,*) continue ;; esac
		case $o in
		noatime|relatime|norelatime|strictatime|atime|nostrictatime)
			[ -z "$atime" ] || continue
			atime=$o ;;
		esac
		key=${o%%=*}
		# an option of ADD-OPTIONS replaces the mount's of that name
		if [[ ,$5, == *,"$key",* || ,$5, == *,"$key"=* ]] && [[ ,$5, != *,"$o",* ]]; then
			continue
		fi
		[[ $seen == *,"$o",* ]] && continue
		seen="$seen$o,"
		out=${out:+$out,}$o
	done
	echo "$src $2 $3 ${out:-defaults} 0 2"
}

# kernel_at_least MAJOR MINOR: the running kernel is that version or later
kernel_at_least() {
	local r maj min
	r=$(uname -r)
	maj=${r%%.*}
	min=${r#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "${min:-0}" -ge "$2" ]; }
}

# need_words OPTION VALUE ALLOWED...: a comma-separated list of ALLOWED
need_words() {
	local opt=$1 list=$2 w
	shift 2
	[ -n "$list" ] || die "$opt takes one or more of: $*"
	for w in ${list//,/ }; do
		case " $* " in *" $w "*) ;; *) die "$opt: unknown '$w'; choose from: $*" ;; esac
	done
}

# make_dir DIR: DIR, made if missing, with a one-line error of ours;
# only the last component: a parent that does not exist is a typo to
# name, not a tree to make
make_dir() {
	local parent
	[ -d "$1" ] && return 0
	[ ! -e "$1" ] || die "$1 exists and is not a directory; give a directory"
	parent=$(dirname "$1")
	[ -d "$parent" ] || die "$parent does not exist; create it first, or give a directory in an existing one instead of $1"
	mkdir "$1" 2>/dev/null || die "cannot create directory $1"
}

# path_unreachable PATH: for a PATH that does not show, why, when the
# cause is a directory above it this user may not search (then it may
# well exist); nothing when it is simply missing
path_unreachable() {
	local up=$1
	[ -e "$up" ] && return 0
	while [ ! -e "$up" ] && [ "$up" != / ] && [ "$up" != . ]; do up=$(dirname "$up"); done
	[ -d "$up" ] && [ ! -x "$up" ] &&
		echo "cannot be reached: this user may not search $up ($(stat -c '%U:%G %A' "$up")); give a path this user can reach, or run as root"
}

# dir_unwritable DIR: why files cannot be made in DIR, the cause then
# its fix after ';', for a message to put after DIR ("is on a read-only
# mount (/mnt); remount it rw ..."); nothing when they can.  The cause
# first: test -w says "not writable" to root too on a read-only mount.
dir_unwritable() {
	local d=$1 mp why
	if [ ! -e "$d" ]; then
		why=$(path_unreachable "$d")
		echo "${why:-does not exist; create it first, or give an existing directory}"
		return 0
	fi
	[ -d "$d" ] || { echo "is not a directory; give a directory"; return 0; }
	mp=$(findmnt -no TARGET -T "$d" 2>/dev/null)
	if findmnt -no OPTIONS -T "$d" 2>/dev/null | tr , '\n' | grep -qx ro; then
		echo "is on a read-only mount ($mp); remount it rw (mount -o remount,rw $mp) or give a directory on a writable filesystem"
	elif [ ! -w "$d" ] || [ ! -x "$d" ]; then
		if [ "$(id -u)" -eq 0 ]; then
			echo "is not writable even by root (immutable? lsattr -d $d shows it); give another directory"
		else
			echo "is not writable by this user ($(stat -c '%U:%G %A' "$d")); give a directory you may write to, or run as root"
		fi
	fi
	return 0
}

# jget [--default VALUE] FILE KEY[.KEY...]... [-- FILE KEY...]...: the
# scripts' one JSON reader (scripts/lib/jget.py): fields of JSON files,
# one a line, a KEY a path of names and list indexes (jobs.0.read.iops);
# FILE - is stdin.  A missing field is an error, or VALUE with --default
jget() { py "$top/scripts/lib/jget.py" "$@"; }

# json_set FILE KEY VALUE...: adds string fields to a JSON object file
json_set() {
	py - "$@" <<'PY'
import json, sys
f, kv = sys.argv[1], sys.argv[2:]
d = json.load(open(f))
d.update(zip(kv[0::2], kv[1::2]))
json.dump(d, open(f, "w"), indent=1)
PY
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

# py [--plot] ARGS...: python3 ARGS (with --plot one with matplotlib)
# with SIGINT ignored.  A terminal's Ctrl-C reaches every process of the
# group, and Python's would be a traceback: the script acts on it
# (stop_on_signal), and SIGTERM ends Python without one
py() {
	local python=python3
	[ "${1:-}" != --plot ] || { python=$(plot_python); shift; }
	(trap '' INT; exec "$python" "$@")
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

# --version as a script's first argument (a file sourced without
# arguments sees the script's): the installed name and the release
if [ "${1:-}" = --version ]; then
	echo "untorn-$prog $(cat "$top/VERSION" 2>/dev/null || echo unknown)"
	exit 0
fi
UNTORN=${UNTORN:-$(find_bin untorn)}
UNTORN_FSCHECK=${UNTORN_FSCHECK:-$(find_bin untorn-fscheck)}
UNTORN_HDD=${UNTORN_HDD:-$(find_bin untorn-hdd)}

# The most row writes a transaction of the crash tools' benchmarks takes
# (crash-sim, crash-matrix, logwrites-replay --txn-writes): over 64, the
# keys a quarter of crash-sim's 4 MiB pool holds, each commits through
# its commit file, so the cuts fall on those too
CRASH_TXN_WRITES_MAX=100000

# debian_mirror: the host's Debian mirror, from its apt sources (deb822
# or one-line), else deb.debian.org
debian_mirror() {
	local m
	m=$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list |
		grep -oE 'https?://[^ ]*/debian/?( |$)' | head -1 | tr -d ' ')
	echo "${m:-http://deb.debian.org/debian}"
}

# The guards of the untorn in use, in its table's order (`untorn guards
# --list`), space-separated; and one guard's fact (`untorn guards --get`):
# guard_fact NAME FACT.  No script keeps a list of its own.
guard_names() {
	local names
	names=$("$UNTORN" guards --list 2>/dev/null) ||
		die "cannot list the guards: $UNTORN guards --list failed (run make)"
	echo $names
}
guard_fact() {	# NAME FACT
	"$UNTORN" guards --get "$2" "$1" 2>/dev/null ||
		die "cannot read guard $1's $2: $UNTORN guards --get failed (run make)"
}

# Two guards by their role, from the guard table: guard_everywhere, the
# first guard safe on every filesystem the scripts make (its crash_fs
# holds them all: it keeps a copy of its own, whatever the filesystem),
# the reference the others are compared with; guard_unprotected, the
# first that init takes only with --unsafe (pages unprotected: what a
# guard costs is measured against it).  Nothing when no guard is so.
guard_everywhere() {
	local g
	for g in $(guard_names); do
		[ "$(guard_fact "$g" crash_fs)" = "ext4-ordered ext4-journal xfs" ] && { echo "$g"; return; }
	done
}
guard_unprotected() {
	local g
	for g in $(guard_names); do
		[ -n "$(guard_fact "$g" init_flags)" ] && { echo "$g"; return; }
	done
}

# The power-cut cases of the guards, one a line, "GUARD FS MOMENT
# [ARGS...]" as crash-sim takes them (dev/crash-matrix cuts each on the
# host, dev/kernel-suite replays them on each kernel): every guard that
# is crash_tested, from its facts, so a guard added to the table is cut
# under with no change here.  First what each keeps whole, on each of
# its crash_fs: cut mid-page after a journal commit, or at random where
# a page write cannot be cut (whole_writes), and at random sectors inside
# the page where its verdict judges the devices (init picks blocks as
# small as the sectors).  Then what each is shown to detect, not
# repair: a guard init takes only with --unsafe, on its crash_fs; one
# whose verdict judges the devices, with 4 KiB blocks on the loop
# device's 512-byte sectors (--unsafe: what its verdict refuses); one
# that needs per-block LSNs (single_lsn not safe), with one LSN a page.
guard_crash_cases() {
	local g fs f moment cut detect=()
	for g in $(guard_names); do
		[ -n "$(guard_fact "$g" crash_tested)" ] || continue
		fs=$(guard_fact "$g" crash_fs)
		if [ "$(guard_fact "$g" expect)" = detect ]; then
			detect+=("$g ${fs%% *} mid-page")
			continue
		fi
		moment=mid-page cut=""
		[ -z "$(guard_fact "$g" whole_writes)" ] || moment=random
		[ -z "$(guard_fact "$g" judges_devices)" ] || [ $moment = random ] || cut=" --cut random"
		for f in $fs; do echo "$g $f $moment$cut"; done
		if [ -n "$(guard_fact "$g" judges_devices)" ]; then
			detect+=("$g ${fs%% *} $moment$cut --block-size 4096 --unsafe --expect detect")
		elif [ "$(guard_fact "$g" single_lsn)" != safe ]; then
			detect+=("$g ${fs%% *} $moment --single-lsn")
		fi
	done
	[ ${#detect[@]} -eq 0 ] || printf '%s\n' "${detect[@]}"
}

# Signals.  stop_on_signal, once the script has children to stop and its
# EXIT trap set: SIGINT or SIGTERM to the script's PID then stops every
# process under it (stop_tree), and the script exits 130 or 143 through
# its EXIT trap (its cleanup).  Bash runs a trap only once the
# foreground command it waits for has ended, so a command that runs
# long goes under `stoppable`: started in the background and waited for, a
# wait the signal ends at once.  Such a child ignores SIGINT, as every
# background command of a script does: a terminal's Ctrl-C, sent to the
# whole process group, is the script's to pass on, as SIGTERM.
stop_on_signal() {
	trap 'stop_tree INT' INT
	trap 'stop_tree TERM' TERM
}

# stoppable CMD ARGS...: CMD as in the foreground (its status, this
# stdin), but a signal to the script stops it at once
stoppable() {
	"$@" <&0 &
	wait $!
}

# alive PID: the process is there and not a zombie
alive() {
	local stat
	read -r stat 2>/dev/null </proc/"$1"/stat || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# stop_tree SIGNAL: SIGTERM to every process under this script (a
# script among them stops its own and cleans up), up to 30 s for them to
# end (SIGKILL after), then exit 128 + SIGNAL's number
stop_tree() {
	local i=0 p
	local -a tree=($$) left=()
	# a second signal (a terminal's and a parent's) ends a sleep, no more
	trap : INT TERM
	while [ $i -lt ${#tree[@]} ]; do
		for p in $(pgrep -P "${tree[$i]}"); do tree+=("$p"); done
		i=$((i + 1))
	done
	tree=("${tree[@]:1}")
	[ ${#tree[@]} -eq 0 ] || kill -TERM "${tree[@]}" 2>/dev/null
	for i in $(seq 300); do
		left=()
		for p in "${tree[@]}"; do alive "$p" && left+=("$p"); done
		[ ${#left[@]} -gt 0 ] || break
		tree=("${left[@]}")
		sleep 0.1	# polling: not every one of them is ours to wait for
	done
	[ ${#left[@]} -eq 0 ] || kill -KILL "${left[@]}" 2>/dev/null
	exit $((128 + $(kill -l "$1")))
}
