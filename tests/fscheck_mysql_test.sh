#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fscheck_mysql_test.sh - untorn-fscheck --mysql against real MariaDB
# datadirs made by Debian's mariadb-install-db on loop filesystems: the
# page size read from ibdata1 (4k and 16k), one verdict per directory (the
# redo log on a filesystem of its own), the server's verdict and exit
# status as configured, the fstab line that makes a 4k server safe (and
# mounting as it says does), no fstab line where no mount option helps
# (16k pages); the option files read without my_print_defaults give what
# the server's own reader gives (!include, !includedir, quotes, comments,
# skip-/loose- prefixes); --measure DIR hands the server's page size and
# redo capacity to the measurement, in a directory beside the datadir
# only; and every
# refusal is one line, exit 2.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
FSCHECK=${FSCHECK:-$(dirname "$UNTORN")/untorn-fscheck}
scratch=$(mktemp -d "/var/tmp/untorn-fscheck-mysql-$$-XXXXXX")
cleanup() {
	loopfs_cleanup
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/loopfs.sh"
ktap_plan 16

[ "$(id -u)" -eq 0 ] || ktap_skip_rest fscheck-mysql "needs root for loop devices and mounts"
missing=""
for t in mariadb-install-db:mariadb-server my_print_defaults:mariadb-client-core \
	mkfs.ext4:e2fsprogs losetup:mount; do
	command -v "${t%%:*}" >/dev/null || missing="$missing ${t#*:}"
done
if [ -n "$missing" ]; then
	ok 1 "fscheck --mysql: missing; apt-get install$missing (make check does)"
	ktap_skip_rest fscheck-mysql "tools missing"
fi

# check ARGS...: untorn-fscheck's stdout in $scratch/out, stderr in
# $scratch/err, its exit in $rc
check() {
	"$FSCHECK" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
}

# install NAME PAGE DATADIR REDODIR: a datadir made by the server's own
# installer from an option file of its own ($scratch/NAME.cnf)
install_db() {
	mkdir -p "$4"
	cat >"$scratch/$1.cnf" <<-EOF
	[mysqld]
	datadir = $3
	innodb_page_size = $2
	innodb_log_group_home_dir = $4
	innodb_log_file_size = 8M
	EOF
	mariadb-install-db --defaults-file="$scratch/$1.cnf" --user=root \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$scratch/$1.install.log" 2>&1
}

loopfs ord 256M "mkfs.ext4 -q -F -b 4096" "" &&
	loopfs jnl 256M "mkfs.ext4 -q -F -b 4096" "data=journal" &&
	loopfs redo 128M "mkfs.ext4 -q -F -b 4096" "" ||
	ktap_skip_rest fscheck-mysql "cannot make ext4 loop filesystems"

# --- 4k pages on data=ordered: unsafe, and the fstab line that fixes it --
install_db s4 4k "$scratch/ord/data" "$scratch/redo/s4" ||
	{ sed 's/^/# /' "$scratch/s4.install.log"; ok 1 "mariadb-install-db made a datadir"; ktap_skip_rest fscheck-mysql "no datadir"; }
check --mysql --defaults-file "$scratch/s4.cnf"
[ $rc -eq 1 ] && grep -q "^page size *4096 ($scratch/ord/data/ibdata1, full_crc32 format)" "$scratch/out" &&
	grep -q "^doublewrite *ON (the default)" "$scratch/out" &&
	grep -q "^server: UNSAFE to turn the doublewrite buffer off: $scratch/ord/data can tear a 4096-byte page" "$scratch/out" &&
	grep -q "^innodb_doublewrite = ON" "$scratch/out" &&
	grep -q "^$scratch/ord.img $scratch/ord ext4 loop,.*data=journal 0 2$" "$scratch/out"
ok $? "4k MariaDB datadir on data=ordered: page size from ibdata1, UNSAFE, keep ON, fstab line with data=journal for $dev_ord's file, exit 1"
sed -n 's/^server/# server/p' "$scratch/out"

# one rule for fstab lines: fix-journal's plan for the same mount is the
# same line (the mount's options kept, data=journal added)
fsline=$(grep "^$scratch/ord.img " "$scratch/out")
: >"$scratch/fstab"
UNTORN_FSCHECK=$FSCHECK "$top/scripts/fix-journal" "$scratch/ord" --fstab "$scratch/fstab" >"$scratch/fix.out" 2>&1
fixline=$(sed -n "s|^  [0-9]*\. in $scratch/fstab: ||p" "$scratch/fix.out")
echo "# fscheck:     $fsline"
echo "# fix-journal: $fixline"
[ -n "$fsline" ] && [ "$fsline" = "$fixline" ]
ok $? "fscheck --mysql and fix-journal print the same fstab line for the same mount"

awk -v d="$scratch/redo/s4" '$0 == d "  (innodb_log_group_home_dir (redo log))" { r = 1; next }
	r && /ext4 data=ordered on/ { m = 1; next }
	r && /redo log only: InnoDB writes it in checksummed 512-byte blocks/ { print m ? "yes" : "no"; exit }' \
	"$scratch/out" | grep -q yes
ok $? "the redo log's own filesystem gets its own line: data=ordered, no doublewrite question"

# doing what it said: mounting data=journal makes the same server safe
umount "$scratch/ord" && mount -o data=journal "$dev_ord" "$scratch/ord" &&
	check --mysql --defaults-file "$scratch/s4.cnf"
[ $rc -eq 0 ] && grep -q "^server: SAFE to turn the doublewrite buffer off" "$scratch/out" &&
	grep -q "^innodb_doublewrite = OFF" "$scratch/out" && ! grep -q "/etc/fstab" "$scratch/out"
ok $? "after mounting as the fstab line says: SAFE to turn it off, OFF to paste, exit 0"

# the redo log's capacity as the server reads it (8M, one file), and on
# data=journal the jbd2 journal's size (as dumpe2fs reads it) beside it
grep -q "^redo log *8 MiB (innodb_log_file_size = 8M x 1 file (innodb_log_files_in_group not set))" "$scratch/out" &&
	jmib=$(($(dumpe2fs -h "$dev_ord" 2>/dev/null | sed -n 's/^\(Total \)\{0,1\}[Jj]ournal size: *\([0-9]*\)M$/\2/p' | head -1) + 0)) &&
	[ "$jmib" -gt 0 ] && grep -q "^    jbd2 journal $jmib MiB: on data=journal page writes wait there" "$scratch/out"
ok $? "the redo log's capacity (innodb_log_file_size x files) and, on data=journal, the jbd2 journal's size (${jmib:-?} MiB) printed"

echo "innodb_doublewrite = 0" >>"$scratch/s4.cnf"
check --mysql --defaults-file "$scratch/s4.cnf" --json
[ $rc -eq 0 ] && python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["page_size"] == 4096 and j["doublewrite"] is False and j["doublewrite_off_safe"] is True
assert j["redo_log_bytes"] == 8 << 20, j["redo_log_bytes"]
pages = [d for d in j["directories"] if d["pages"]]
assert pages and all(d["safe"] and d["data_mode"] == " data=journal" for d in pages)
assert all(d["jbd2_journal_bytes"] == int(sys.argv[2]) << 20 for d in pages), pages
' "$scratch/out" "${jmib:-0}"
ok $? "--json: doublewrite off, every page directory safe on data=journal, the redo log's and the jbd2 journal's bytes"

printf 'innodb_redo_log_capacity = 2G\n' >>"$scratch/s4.cnf"
check --mysql --defaults-file "$scratch/s4.cnf" --json
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(j["redo_log_bytes"] != 2 << 30 or "innodb_redo_log_capacity = 2G" not in j["redo_log_from"])' "$scratch/out"
ok $? "innodb_redo_log_capacity, where set, is the capacity (MySQL 8.0.30+)"

# --- --mysql --measure DIR: the glue (the measurement itself is
# measure_test's); a copy of untorn-fscheck runs a stand-in measuring
# script beside it that records what it was given
mkdir -p "$scratch/fake/bin" "$scratch/fake/scripts"
cp "$FSCHECK" "$scratch/fake/bin/untorn-fscheck"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >"%s"\necho %s\n' "$scratch/measured" "'{\"stand_in\": true}'" \
	>"$scratch/fake/scripts/doublewrite-cost"
chmod +x "$scratch/fake/scripts/doublewrite-cost"
mkdir -p "$scratch/ord/data/inside" "$scratch/redo/other" "$scratch/ord/scratch"
ln -s "$scratch/ord/data" "$scratch/ord/link"
bad=0
# WHERE:REASON, each refused for its own reason
for c in ":give one scratch directory" "$scratch/ord/data/inside:inside the datadir" \
	"$scratch/ord/data:inside the datadir" "$scratch/ord/link/inside:inside the datadir" \
	"$scratch/redo/other:not on the datadir's filesystem" "$scratch/ord/nothere:no such directory"; do
	where=${c%%:*}
	# shellcheck disable=SC2086
	"$scratch/fake/bin/untorn-fscheck" --mysql --defaults-file "$scratch/s4.cnf" --measure $where \
		>"$scratch/out" 2>"$scratch/err"
	rc=$?
	echo "# ${where:-no DIR}: $(cat "$scratch/err")"
	[ $rc -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] &&
		grep -q "${c#*:}" "$scratch/err" && [ ! -e "$scratch/measured" ] || bad=1
done
rmdir "$scratch/ord/data/inside"
rm "$scratch/ord/link"
[ $bad -eq 0 ]
ok $? "--mysql --measure with no DIR, inside the datadir (or through a symlink), the datadir itself, on another filesystem, missing: one line naming it, exit 2, nothing printed or measured"

check --mysql --defaults-file "$scratch/s4.cnf"
want=$rc
"$scratch/fake/bin/untorn-fscheck" --mysql --defaults-file "$scratch/s4.cnf" --measure=300 \
	"$scratch/ord/scratch" --json >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq "$want" ] && python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["server"]["page_size"] == 4096 and j["measure"] == {"stand_in": True}
args = open(sys.argv[2]).read().split()
assert args == [sys.argv[3], "--seconds", "300", "--page-size", "4096", "--engine", "innodb", "--json",
                "--redo-capacity", str(2 << 30)], args
' "$scratch/out" "$scratch/measured" "$scratch/ord/scratch"
ok $? "--mysql --measure=300 DIR --json: the server's verdict and the measurement in DIR at its 4096-byte pages and 2G redo capacity, one object, exit $rc (the server's)"

# --- 16k pages on data=journal: no mount makes it safe --------------------
install_db s16 16k "$scratch/jnl/data" "$scratch/redo/s16" ||
	{ sed 's/^/# /' "$scratch/s16.install.log"; ok 1 "mariadb-install-db made a datadir"; ktap_skip_rest fscheck-mysql "no datadir"; }
echo "innodb_doublewrite = OFF" >>"$scratch/s16.cnf"
check --mysql --defaults-file "$scratch/s16.cnf"
[ $rc -eq 1 ] && grep -q "^page size *16384 ($scratch/jnl/data/ibdata1" "$scratch/out" &&
	grep -q "^server: AT RISK as configured: the doublewrite buffer is off and $scratch/jnl/data can tear a 16384-byte page" "$scratch/out" &&
	grep -q "UNSAFE: ext4 data=journal journals each 4096-byte block under its own handle" "$scratch/out" &&
	grep -q "^innodb_doublewrite = ON" "$scratch/out" && ! grep -q "/etc/fstab" "$scratch/out"
ok $? "16k MariaDB datadir on data=journal with the doublewrite off: AT RISK, set ON, no fstab line (no mount helps), exit 1"

# the option says 4k, the tablespace 16k: the file wins, with a warning
sed -i 's/^innodb_page_size = 16k/innodb_page_size = 4k/' "$scratch/s16.cnf"
check --mysql --defaults-file "$scratch/s16.cnf"
[ $rc -eq 1 ] && grep -q "^page size *16384" "$scratch/out" &&
	grep -q "warning: innodb_page_size = 4k, but .*ibdata1 was made with 16384-byte pages" "$scratch/err"
ok $? "innodb_page_size disagreeing with ibdata1: the tablespace's 16384 checked, a warning"

# a table placed elsewhere by DATA DIRECTORY (its .isl link, as the
# server writes it: one line, the .ibd's path)
mkdir -p "$scratch/ord/elsewhere/db" "$scratch/jnl/data/db"
echo "$scratch/ord/elsewhere/db/t.ibd" >"$scratch/jnl/data/db/t.isl"
check --mysql --defaults-file "$scratch/s16.cnf"
grep -q "^$scratch/ord/elsewhere/db  (DATA DIRECTORY of db/t)" "$scratch/out"
ok $? "a table's DATA DIRECTORY (db/t.isl) is checked as a directory of its own"

# --- the option files without my_print_defaults ---------------------------
mkdir -p "$scratch/etc/conf.d" "$scratch/nobin"
cat >"$scratch/etc/my.cnf" <<EOF
# a comment
[client]
datadir = /not/the/server
[mysqld]
datadir = "$scratch/jnl/data"   # the datadir
innodb-flush-method = O_DIRECT
!include $scratch/etc/extra.cnf
!includedir $scratch/etc/conf.d
EOF
printf '[mariadb]\ninnodb_doublewrite = 1\n' >"$scratch/etc/extra.cnf"
printf '[mysqld]\nloose-innodb-log-group-home-dir = %s/redo/s16\n' "$scratch" >"$scratch/etc/conf.d/10-a.cnf"
printf '[server]\nskip-innodb-doublewrite\n' >"$scratch/etc/conf.d/20-b.cnf"
printf '[mysqld]\ninnodb_doublewrite = 1\n' >"$scratch/etc/conf.d/30-ignored.txt"
check --mysql --defaults-file "$scratch/etc/my.cnf" --json
cp "$scratch/out" "$scratch/tool.json"
grep -q '"options": "my_print_defaults' "$scratch/tool.json"
tool_rc=$?
for t in python3 dirname; do ln -sf "$(command -v $t)" "$scratch/nobin/$t"; done
PATH=$scratch/nobin check --mysql --defaults-file "$scratch/etc/my.cnf" --json
[ $tool_rc -eq 0 ] && grep -q '"options": "the option file' "$scratch/out" && python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("datadir", "page_size", "doublewrite", "doublewrite_off_safe"):
    assert a[k] == b[k], (k, a[k], b[k])
assert [d["path"] for d in a["directories"]] == [d["path"] for d in b["directories"]]
assert a["doublewrite"] is False and a["datadir"].endswith("/jnl/data")
' "$scratch/tool.json" "$scratch/out"
ok $? "option files read without my_print_defaults: the same datadir, directories and doublewrite (skip- last) as the server's reader"

# --- refusals: one line, exit 2 -------------------------------------------
fails=0
refused() {	# WHAT PATTERN ARGS...: exit 2, one line matching PATTERN
	local what=$1 pat=$2
	shift 2
	check "$@"
	if [ $rc -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ] || ! grep -q -e "$pat" "$scratch/err" ||
		[ -s "$scratch/out" ]; then
		echo "# $what: exit $rc: $(head -c 300 "$scratch/err")"
		fails=$((fails + 1))
	fi
}
refused "missing option file" "--defaults-file $scratch/none.cnf: No such file" \
	--mysql --defaults-file "$scratch/none.cnf"
# a directory would be read as an empty file: the default datadir judged
refused "a directory as --defaults-file" "--defaults-file $scratch is not a file" \
	--mysql --defaults-file "$scratch"
refused "PATH with --mysql" "drop PATH" --mysql "$scratch"
refused "--defaults-file alone" "goes with --mysql" --defaults-file "$scratch/s4.cnf"
refused "--mysql with --probe" "drop PATH, --page-size, --engine and --probe" \
	--mysql --defaults-file "$scratch/s4.cnf" --probe=3
printf '[mysqld]\ndatadir = %s\ninnodb_doublewrite = maybe\n' "$scratch/ord/data" >"$scratch/bad.cnf"
refused "bad innodb_doublewrite" "innodb_doublewrite = maybe .* is not a value" \
	--mysql --defaults-file "$scratch/bad.cnf"
printf '[mysqld]\ndatadir = %s\ninnodb_page_size = 12k\n' "$scratch/ord/data" >"$scratch/bad.cnf"
refused "bad innodb_page_size" "innodb_page_size = 12k .* not a power of two" \
	--mysql --defaults-file "$scratch/bad.cnf"
# unreadable for a reason root does not change: not "run as root"
mkdir -p "$scratch/isdir/ibdata1"
printf '[mysqld]\ndatadir = %s\n' "$scratch/isdir" >"$scratch/bad.cnf"
refused "ibdata1 a directory" "isdir/ibdata1: Is a directory; check the path" \
	--mysql --defaults-file "$scratch/bad.cnf"
grep -q "as root" "$scratch/err" && fails=$((fails + 1))
printf '[mysqld]\ndatadir = %s\ninnodb_log_file_size = lots\n' "$scratch/ord/data" >"$scratch/bad.cnf"
refused "bad innodb_log_file_size" "innodb_log_file_size = lots .* is not a size the server takes" \
	--mysql --defaults-file "$scratch/bad.cnf"
ok $fails "refusals (missing option file, a directory as the option file, PATH, --probe or --defaults-file misused, bad innodb_doublewrite, bad innodb_page_size, bad innodb_log_file_size, ibdata1 a directory: no \"run as root\"): one line, exit 2, nothing on stdout"

# a system tablespace that is not one: refused, not guessed
dd if=/dev/zero of="$scratch/ord/data/ibdata1" bs=4096 count=1 conv=notrunc status=none
fails=0
refused "zeroed ibdata1" "ibdata1: its first page is not an InnoDB tablespace header" \
	--mysql --defaults-file "$scratch/s4.cnf"
ok $fails "a zeroed ibdata1 header: refused naming the file, exit 2"

# --- btrfs: a schema directory with chattr +C and no table yet -------------
# copy-on-write protects every file there now, but the next CREATE TABLE
# makes a NOCOW .ibd in shop/: the server is unsafe already
if ! grep -qw btrfs /proc/filesystems && ! modprobe btrfs 2>/dev/null; then
	ok_skip "btrfs datadir with a NOCOW schema directory" "this kernel has no btrfs"
elif ! command -v mkfs.btrfs >/dev/null; then
	ok 1 "mkfs.btrfs is installed (make check installs btrfs-progs)"
else
	loopfs bt 256M "mkfs.btrfs -q -f" "" &&
		install_db sb 16k "$scratch/bt/data" "$scratch/redo/sb" ||
		sed 's/^/# /' "$scratch/sb.install.log"
	echo "innodb_doublewrite = OFF" >>"$scratch/sb.cnf"
	check --mysql --defaults-file "$scratch/sb.cnf"
	r=1
	[ $rc -eq 0 ] && grep -q "^server: SAFE" "$scratch/out" && r=0
	mkdir "$scratch/bt/data/shop" && chattr +C "$scratch/bt/data/shop" &&
		check --mysql --defaults-file "$scratch/sb.cnf"
	[ $r -eq 0 ] && [ $rc -eq 1 ] && grep -q "^server: AT RISK" "$scratch/out" &&
		grep -q "UNSAFE: btrfs, but the directory shop/ is NOCOW" "$scratch/out" &&
		grep -q "^innodb_doublewrite = ON" "$scratch/out"
	ok $? "btrfs datadir SAFE; with an empty chattr +C schema directory shop/: AT RISK, shop/ named, exit 1"
	sed -n 's/^server/# server/p' "$scratch/out"
fi
ktap_finish
