#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fscheck_test.sh - verdicts that must never say "safe" wrongly, on real
# filesystems (loop devices, root): ext4 made without a journal (said so,
# and the fix offered -- tune2fs -O has_journal, then data=journal --
# really makes the journal guard safe), btrfs with copy-on-write (safe)
# and with NOCOW directories and files (chattr +C: unsafe, counted), ext4
# data=journal with 1 KiB blocks (the block size named, remake with -b
# 4096), and what the untorn_jw line and the man page say about InnoDB.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
FSCHECK=${FSCHECK:-$(dirname "$UNTORN")/untorn-fscheck}
scratch=$(mktemp -d "/var/tmp/untorn-fscheck-$$-XXXXXX")
cleanup() {
	loopfs_cleanup
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/loopfs.sh"
ktap_plan 13

[ "$(id -u)" -eq 0 ] || ktap_skip_rest fscheck "needs root for loop devices and mounts"
for t in losetup mkfs.ext4 tune2fs chattr mkfs.btrfs; do
	command -v $t >/dev/null || { ok 1 "$t is installed (make check installs e2fsprogs and btrfs-progs)"; ktap_skip_rest fscheck "$t missing"; }
done

# verdict DIR [ARGS]: fscheck's text in $scratch/out, its exit in $rc
verdict() {
	"$FSCHECK" "$@" >"$scratch/out" 2>&1
	rc=$?
}

# --- ext4 without a journal ---------------------------------------------
loopfs nojournal 256M "mkfs.ext4 -q -F -b 4096 -O ^has_journal" "" ||
	ktap_skip_rest fscheck "cannot make an ext4 loop filesystem"
verdict "$scratch/nojournal"
[ $rc -eq 1 ] && grep -q "^data mode *none (no journal)" "$scratch/out" &&
	grep -q "InnoDB.*UNSAFE: this ext4 has no journal.*tune2fs -O has_journal" "$scratch/out" &&
	grep -q "untorn --guard journal *UNSAFE: this ext4 has no journal" "$scratch/out" &&
	! grep -q "data mode *ordered" "$scratch/out"
ok $? "ext4 made with -O ^has_journal: 'no journal', fix tune2fs -O has_journal, exit 1"
sed -n 's/^InnoDB/# InnoDB/p' "$scratch/out"

# the fix as this user types it: the real device, and mkfs-journal by
# its path in this checkout, or by its installed name for a binary that
# runs outside one (a copy in $scratch/bin)
mkdir -p "$scratch/bin" && cp "$FSCHECK" "$scratch/bin/untorn-fscheck" &&
	"$scratch/bin/untorn-fscheck" "$scratch/nojournal" >"$scratch/out.inst" 2>&1
tree=$(cd "$(dirname "$(readlink -f "$FSCHECK")")/.." && pwd)
grep -q "tune2fs -O has_journal $dev," "$scratch/out" &&
	grep -q "filesystem with $tree/scripts/mkfs-journal)" "$scratch/out" &&
	grep -q "filesystem with untorn-mkfs-journal)" "$scratch/out.inst" &&
	! grep -q "scripts/" "$scratch/out.inst" && ! grep -qw -e DEVICE -e PATH "$scratch/out"
ok $? "the fix names $dev, and mkfs-journal as the user has it: $tree/scripts/mkfs-journal here, untorn-mkfs-journal installed"

umount "$scratch/nojournal" && tune2fs -O has_journal "$dev" >/dev/null &&
	mount -o data=journal "$dev" "$scratch/nojournal" && verdict "$scratch/nojournal" &&
	grep -q "untorn --guard journal *SAFE" "$scratch/out" && grep -q "^data mode *journal" "$scratch/out"
ok $? "following that fix (tune2fs -O has_journal, mount -o data=journal) makes the journal guard safe"

# --- ext4 data=journal on 1 KiB blocks -------------------------------------
loopfs onek 256M "mkfs.ext4 -q -F -b 1024" data=journal ||
	ktap_skip_rest fscheck "cannot make a 1 KiB-block ext4"
verdict "$scratch/onek"
[ $rc -eq 1 ] && grep -q "^block size *1024" "$scratch/out" &&
	grep -q "InnoDB.*UNSAFE: this ext4 has 1024-byte blocks.*mkfs.ext4 -b 4096" "$scratch/out"
ok $? "ext4 data=journal with 1 KiB blocks: the block size named, remake with -b 4096"
sed -n 's/^InnoDB/# InnoDB/p' "$scratch/out"
# the two lists of mount options, each named: the mount's (VFS) and the
# filesystem's (superblock, where data=journal is)
grep -q "^mount options *per mount (VFS) rw[a-z,]*; per filesystem (superblock) rw,.*data=journal" "$scratch/out"
ok $? "mount options: the mount's (VFS) and the filesystem's (superblock) lists, each named"
grep '^mount options' "$scratch/out" | sed 's/^/# /'

# --- btrfs -------------------------------------------------------------------
# Each UNSAFE case then follows the fix the output gives and checks that
# it makes the path SAFE: a fix line is only printed if it works.
btrfs_cases=("btrfs mounts" "btrfs with copy-on-write" "a NOCOW datadir, and chattr -C as told"
	"a NOCOW table file, and the copy as told" "an empty NOCOW schema directory, and chattr -C as told"
	"a NOCOW directory four levels down and an empty NOCOW file" "nodatacow, and the remount as told")
if ! grep -qw btrfs /proc/filesystems && ! modprobe btrfs 2>/dev/null; then
	for c in "${btrfs_cases[@]}"; do
		ok_skip "$c" "this kernel has no btrfs"
	done
else
	loopfs btrfs 256M "mkfs.btrfs -q -f" ""
	ok $? "a btrfs loop filesystem mounts"
	mkdir -p "$scratch/btrfs/cow/db"
	head -c 65536 /dev/urandom >"$scratch/btrfs/cow/ibdata1"
	verdict "$scratch/btrfs/cow"
	[ $rc -eq 0 ] && grep -q "^copy-on-write *yes (0 of 1 files, 0 of 1 directories NOCOW)" "$scratch/out" &&
		grep -q "InnoDB.*SAFE: btrfs is copy-on-write.*no file or directory under the path is NOCOW" "$scratch/out"
	ok $? "btrfs with copy-on-write: InnoDB may turn its doublewrite buffer off (exit $rc)"

	mkdir "$scratch/btrfs/nocow"
	chattr +C "$scratch/btrfs/nocow"
	head -c 65536 /dev/urandom >"$scratch/btrfs/nocow/ibdata1"
	verdict "$scratch/btrfs/nocow"
	[ $rc -eq 1 ] && grep -q "^copy-on-write *NO: the path is NOCOW" "$scratch/out" &&
		grep -q "InnoDB.*UNSAFE: btrfs, but the path $scratch/btrfs/nocow is NOCOW" "$scratch/out" &&
		grep -q "untorn --guard doublewrite *SAFE" "$scratch/out" &&
		grep -q "chattr -C $scratch/btrfs/nocow and every NOCOW directory under it" "$scratch/out"
	r=$?
	sed -n 's/^InnoDB/# InnoDB/p' "$scratch/out"
	# following it: clear the directory's flag, copy its file
	(cd "$scratch/btrfs/nocow" && chattr -C . && cp --reflink=never ibdata1 ibdata1.new &&
		mv ibdata1.new ibdata1) && verdict "$scratch/btrfs/nocow" && [ $rc -eq 0 ]
	ok $((r | $?)) "a chattr +C datadir on btrfs: UNSAFE naming it; chattr -C and a copy, as told, make it SAFE"

	mkdir -p "$scratch/btrfs/mixed/db1"
	head -c 65536 /dev/urandom >"$scratch/btrfs/mixed/ibdata1"
	: >"$scratch/btrfs/mixed/db1/t1.ibd"
	chattr +C "$scratch/btrfs/mixed/db1/t1.ibd"
	head -c 65536 /dev/urandom >>"$scratch/btrfs/mixed/db1/t1.ibd"
	verdict "$scratch/btrfs/mixed"
	[ $rc -eq 1 ] && grep -q "1 of 2 files under the path are NOCOW (chattr +C; the first: db1/t1.ibd)" "$scratch/out" &&
		grep -q "copy each NOCOW file into a new one.*cp --reflink=never F F.new && mv F.new F" "$scratch/out"
	r=$?
	(cd "$scratch/btrfs/mixed/db1" && cp --reflink=never t1.ibd t1.ibd.new && mv t1.ibd.new t1.ibd) &&
		verdict "$scratch/btrfs/mixed" && [ $rc -eq 0 ]
	ok $((r | $?)) "one NOCOW table file a directory down: UNSAFE, 1 of 2 files named; the copy, as told, makes it SAFE"

	# the issue's case: a schema directory with +C and no table yet; the
	# next CREATE TABLE would make a NOCOW .ibd in it
	mkdir -p "$scratch/btrfs/schema/shop"
	head -c 65536 /dev/urandom >"$scratch/btrfs/schema/ibdata1"
	chattr +C "$scratch/btrfs/schema/shop"
	verdict "$scratch/btrfs/schema"
	[ $rc -eq 1 ] && grep -q "^copy-on-write *NO: shop/ is NOCOW" "$scratch/out" &&
		grep -q "InnoDB.*UNSAFE: btrfs, but the directory shop/ is NOCOW.*every file made in it later" "$scratch/out" &&
		grep -q "chattr -C $scratch/btrfs/schema/shop/ and every NOCOW directory" "$scratch/out"
	r=$?
	sed -n 's/^InnoDB/# InnoDB/p' "$scratch/out"
	: >"$scratch/btrfs/schema/shop/orders.ibd"
	lsattr "$scratch/btrfs/schema/shop/orders.ibd" | grep -q '^[^ ]*C' || r=1
	rm -f "$scratch/btrfs/schema/shop/orders.ibd"
	chattr -C "$scratch/btrfs/schema/shop" && verdict "$scratch/btrfs/schema" && [ $rc -eq 0 ] &&
		: >"$scratch/btrfs/schema/shop/orders.ibd" &&
		! lsattr "$scratch/btrfs/schema/shop/orders.ibd" | grep -q '^[^ ]*C'
	ok $((r | $?)) "an empty schema directory with +C: UNSAFE naming shop/ (a new file in it is NOCOW); chattr -C, as told, makes it SAFE"

	mkdir -p "$scratch/btrfs/deep/a/b/c/d"
	chattr +C "$scratch/btrfs/deep/a/b/c/d"
	verdict "$scratch/btrfs/deep"
	grep -q "^copy-on-write *NO: a/b/c/d/ is NOCOW" "$scratch/out" && [ $rc -eq 1 ]
	r=$?
	chattr -C "$scratch/btrfs/deep/a/b/c/d" && touch "$scratch/btrfs/deep/a/empty.ibd" &&
		chattr +C "$scratch/btrfs/deep/a/empty.ibd" && verdict "$scratch/btrfs/deep" &&
		[ $rc -eq 1 ] && grep -q "1 of 1 files under the path are NOCOW (chattr +C; the first: a/empty.ibd)" "$scratch/out"
	ok $((r | $?)) "a NOCOW directory four levels down, and an empty NOCOW file: each UNSAFE, named"

	# nodatacow: the whole mount; the remount it gives, then the files
	# made meanwhile named, then copied
	rc=0
	mkdir -p "$scratch/btrfs/ndc" && mount -o remount,nodatacow "$scratch/btrfs" &&
		head -c 65536 /dev/urandom >"$scratch/btrfs/ndc/ibdata1"
	verdict "$scratch/btrfs/ndc"
	[ $rc -eq 1 ] && grep -q "InnoDB.*UNSAFE: btrfs mounted nodatacow" "$scratch/out" &&
		grep -q "mount -o remount,datacow $scratch/btrfs " "$scratch/out" &&
		! grep -q "move the datadir" "$scratch/out"
	r=$?
	mount -o remount,datacow "$scratch/btrfs" && verdict "$scratch/btrfs/ndc" && [ $rc -eq 1 ] &&
		grep -q "the first: ibdata1" "$scratch/out" &&
		(cd "$scratch/btrfs/ndc" && cp --reflink=never ibdata1 ibdata1.new && mv ibdata1.new ibdata1) &&
		verdict "$scratch/btrfs/ndc" && [ $rc -eq 0 ]
	ok $((r | $?)) "btrfs mounted nodatacow: UNSAFE, the remount as told, then the file made meanwhile named and copied: SAFE"
fi

# --- untorn_jw: what it does and does not change ------------------------------
verdict "$scratch/onek"
grep -q "^untorn_jw .*never InnoDB/MariaDB" "$scratch/out" &&
	man_text=$(nroff -man "$top/man/untorn-fscheck.8" 2>/dev/null | sed 's/.\x08//g' | tr -s '[:space:]' ' ') &&
	echo "$man_text" | grep -q "Loading the untorn_jw kernel module does not change that" &&
	! echo "$man_text" | grep -q "or when the untorn_jw kernel module is loaded"
ok $? "untorn_jw: the output and the man page say it never makes InnoDB safe"

ktap_finish
