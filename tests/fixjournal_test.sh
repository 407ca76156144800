#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fixjournal_test.sh - scripts/fix-journal on a mounted ext4 with data on
# it (loop devices, an fstab of the test's own): the plan names every step
# and changes nothing; --apply unmounts, grows the 8 MiB journal to the
# size mkfs-journal would give, writes the fstab line and mounts
# data=journal with the data intact, after which the journal guard's
# verdict is safe and a second run has nothing to do; a busy filesystem,
# 1 KiB blocks, XFS and bad values are refused in one line with nothing
# changed; the root filesystem gets the kernel command line, never --apply.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
UNTORN=${UNTORN:-$top/build/untorn}
FIX=$top/scripts/fix-journal
scratch=$(mktemp -d "/var/tmp/untorn-fixjournal-$$-XXXXXX")
cleanup() {
	exec 9<&-
	loopfs_cleanup
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
. "$(dirname "$0")/loopfs.sh"
ktap_plan 7

[ "$(id -u)" -eq 0 ] || ktap_skip_rest fix-journal "needs root for loop devices and mounts"
for t in mkfs.ext4:e2fsprogs tune2fs:e2fsprogs dumpe2fs:e2fsprogs mkfs.xfs:xfsprogs findmnt:util-linux; do
	command -v "${t%%:*}" >/dev/null ||
		{ ok 1 "${t%%:*} is installed (make check installs ${t#*:})"; ktap_skip_rest fix-journal "${t%%:*} missing"; }
done

# fix ARGS...: stdout+stderr in $scratch/out, exit in $rc
fix() {
	UNTORN_FSCHECK=$(dirname "$UNTORN")/untorn-fscheck "$FIX" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	cat "$scratch/err" >>"$scratch/out"
}
# state: what must not change when nothing is to be changed
state() {
	{ md5sum <"$scratch/fstab"; findmnt -rn -o OPTIONS "$scratch/db"
	  dumpe2fs -h "$dev_db" 2>/dev/null | grep -E "journal (size|blocks)|^Filesystem features"; } | md5sum
}

loopfs db 512M "mkfs.ext4 -q -F -b 4096 -J size=8" "" ||
	ktap_skip_rest fix-journal "cannot make an ext4 loop filesystem"
head -c 3M /dev/urandom >"$scratch/db/table.ibd"
sum_before=$(md5sum <"$scratch/db/table.ibd")
uuid=$(blkid -o value -s UUID "$dev_db")
printf '# a comment\nUUID=%s %s ext4 noatime,data=ordered 0 2\n' "$uuid" "$scratch/db" >"$scratch/fstab"
# the one rule: the entry's options (noatime) and the mount's kept,
# data=journal added, named by its file with loop (a loop device has no
# UUID at boot)
fstab_db="$scratch/db.img $scratch/db ext4 loop,noatime,data=journal 0 2"

# --- the plan ---------------------------------------------------------------
before=$(state)
fix "$scratch/db" --fstab "$scratch/fstab"
[ $rc -eq 0 ] && [ "$(state)" = "$before" ] &&
	grep -q "journal 8 MiB" "$scratch/out" &&
	grep -q "grow the journal from 8 to 128 MiB (4 x 50 MB/s x 5 s = 1000 MiB, capped at 128 MiB, a quarter of the 512 MiB filesystem)" "$scratch/out" &&
	grep -q "umount $scratch/db" "$scratch/out" &&
	grep -q "tune2fs -J size=128 $dev_db" "$scratch/out" &&
	grep -qF "in $scratch/fstab: $fstab_db" "$scratch/out" &&
	grep -q "nothing changed; --apply carries them out" "$scratch/out"
ok $? "the plan: unmount, journal 8 -> 128 MiB (a quarter of 512 MiB), the fstab line with data=journal; nothing changed"
sed 's/^/# /' "$scratch/out"

# --- busy: refused, nothing changed -----------------------------------------
exec 9<"$scratch/db/table.ibd" # an open file keeps it busy
fix "$scratch/db" --fstab "$scratch/fstab" --apply
exec 9<&-
[ $rc -eq 2 ] && [ "$(state)" = "$before" ] && grep -q "cannot unmount $scratch/db: it is busy" "$scratch/err" &&
	[ "$(wc -l <"$scratch/err")" -eq 1 ]
ok $? "--apply on a busy filesystem: refused (busy, who uses it), exit 2, nothing changed"

# --- apply --------------------------------------------------------------------
fix "$scratch/db" --fstab "$scratch/fstab" --apply
jsize=$(dumpe2fs -h "$dev_db" 2>/dev/null | sed -n 's/^Total journal size: *//p; s/^Journal size: *//p')
[ $rc -eq 0 ] && findmnt -rn -o OPTIONS "$scratch/db" | grep -q "data=journal" && [ "$jsize" = 128M ] &&
	grep -qxF "$fstab_db" "$scratch/fstab" &&
	grep -q "^# a comment" "$scratch/fstab" && [ "$(grep -c "$scratch/db" "$scratch/fstab")" -eq 1 ] &&
	cmp -s "$scratch/fstab.untorn-bak" <(printf '# a comment\nUUID=%s %s ext4 noatime,data=ordered 0 2\n' "$uuid" "$scratch/db") &&
	[ "$(md5sum <"$scratch/db/table.ibd")" = "$sum_before" ]
ok $? "--apply: mounted data=journal, journal 128 MiB (dumpe2fs: $jsize), one fstab line changed, the old one kept, the data intact"

# the verdict asked about is InnoDB's: 16 KiB pages on 4 KiB blocks are
# still UNSAFE on data=journal, and it says so, beside the journal guard's
grep -q "InnoDB, 16 KiB pages (its default), doublewrite off: UNSAFE" "$scratch/out" &&
	grep -q "journal guard: *SAFE" "$scratch/out" &&
	"$(dirname "$UNTORN")/untorn-fscheck" "$scratch/db" --engine untorn >/dev/null
ok $? "after --apply: InnoDB's verdict (16 KiB pages: UNSAFE) and the journal guard's (SAFE) reported"

fix "$scratch/db" --fstab "$scratch/fstab"
[ $rc -eq 0 ] && grep -q "nothing to do" "$scratch/out"
r=$?
[ $r -eq 0 ] || sed 's/^/# /' "$scratch/out"
ok $r "a second run: nothing to do"

# --- what no remount can change, and what is not ext4 -------------------------
fails=0
refused() {	# WHAT PATTERN ARGS...
	local what=$1 pat=$2
	shift 2
	fix "$@"
	if [ $rc -ne 2 ] || ! grep -q -e "$pat" "$scratch/err" || [ "$(wc -l <"$scratch/err")" -ne 1 ]; then
		echo "# $what: exit $rc: $(head -c 300 "$scratch/out")"
		fails=$((fails + 1))
	fi
}
loopfs small 256M "mkfs.ext4 -q -F -b 1024" "" &&
	loopfs x 512M "mkfs.xfs -q -f" "" || ktap_skip_rest fix-journal "cannot make the loop filesystems"
before_small=$(md5sum </proc/self/mountinfo | cut -c1-8)
refused "1 KiB blocks" "1024-byte blocks.*cannot change in place" "$scratch/small" --fstab "$scratch/fstab" --apply
refused "XFS" "is on xfs, which cannot journal file data" "$scratch/x" --fstab "$scratch/fstab"
refused "no PATH" "no PATH" --fstab "$scratch/fstab"
refused "bad --rate" "--rate takes a whole number" "$scratch/db" --rate fast
refused "missing fstab" "--fstab $scratch/nofstab does not exist" "$scratch/db" --fstab "$scratch/nofstab"
! findmnt -rn -o OPTIONS "$scratch/small" | grep -q "data=journal"
ok $((fails + $?)) "refused in one line, exit 2, nothing changed: 1 KiB blocks (remake), XFS, no PATH, a bad --rate, a missing fstab"

# --- the root filesystem: the kernel command line, and no --apply -------------
rootdev=$(findmnt -rn -o SOURCE /)
if [ "$(findmnt -rn -o FSTYPE /)" != ext4 ]; then
	ok_skip "the root filesystem" "/ is $(findmnt -rn -o FSTYPE /), not ext4"
elif ! why=$(dumpe2fs -h "$rootdev" 2>&1 >/dev/null); then
	ok_skip "the root filesystem" "its superblock cannot be read here ($(echo "$why" | grep -v '^dumpe2fs [0-9]' | head -1))"
else
	cp /etc/fstab "$scratch/rootfstab" 2>/dev/null || : >"$scratch/rootfstab"
	fix / --fstab "$scratch/rootfstab" --apply
	if grep -q "data=journal with a" "$scratch/out"; then
		ok 0 "/ is already data=journal: nothing to say"
	else
		[ $rc -eq 2 ] && grep -q "rootflags=data=journal" "$scratch/out" &&
			grep -q "does not change the root filesystem" "$scratch/out"
		ok $? "/ (ext4): rootflags=data=journal on the kernel command line, --apply refused"
	fi
fi
ktap_finish
