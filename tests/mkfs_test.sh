#!/bin/bash
# SPDX-License-Identifier: MIT
#
# mkfs_test.sh - scripts/mkfs-journal and scripts/mkfs-atomic on files
# (loop devices, root): the filesystem is made and mounted with the
# options the guard needs, the journal is sized by the rule, the verdict
# says the guard is safe; a mounted or attached target, an existing
# filesystem without --force, and bad options are refused with exit 2 and
# nothing changed; a file on a filesystem without its size free is
# refused before mkfs (which would fail with an I/O error).
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "/var/tmp/untorn-mkfs-$$-XXXXXX")
cleanup() {
	local m l
	for m in "$scratch"/mnt*; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
	mountpoint -q "$scratch/full" 2>/dev/null && umount "$scratch/full"
	for l in $(losetup -j "$scratch/j.img" 2>/dev/null | cut -d: -f1) \
		 $(losetup -j "$scratch/a.img" 2>/dev/null | cut -d: -f1); do
		losetup -d "$l"
	done
	rm -rf "$scratch"
}
trap cleanup EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 13
[ "$(id -u)" -eq 0 ] || ktap_skip_rest mkfs "needs root for mkfs, mount and loop devices"
for t in mkfs.ext4 mkfs.xfs losetup blkid findmnt dumpe2fs; do
	command -v $t >/dev/null || ktap_skip_rest mkfs "$t not installed (apt-get install e2fsprogs xfsprogs util-linux)"
done
losetup -f >/dev/null 2>&1 || ktap_skip_rest mkfs "no free loop device"

unmount_detach() {	# MOUNTPOINT
	local dev
	dev=$(findmnt -rn -o SOURCE "$1")
	umount "$1" && losetup -d "$dev"
}

# fstab_of OUT: the fstab line printed, its options sorted (the rule is
# the mount's options and the needed ones, in the kernel's order)
fstab_of() {
	sed -n '/^\/etc\/fstab line:/{n;p}' "$1" | awk '{ n = split($4, o, ","); asort(o); s = o[1]
		for (i = 2; i <= n; i++) s = s "," o[i]
		print $1, $2, $3, s, $5, $6 }'
}

"$top/scripts/mkfs-journal" "$scratch/j.img" --size 1G --mount "$scratch/mnt-j" >"$scratch/out" 2>&1
rc=$?
opts=$(findmnt -rn -o OPTIONS "$scratch/mnt-j")
[ $rc -eq 0 ] && echo "$opts" | grep -q 'data=journal' && echo "$opts" | grep -q noatime &&
	[ "$(fstab_of "$scratch/out")" = "$scratch/j.img $scratch/mnt-j ext4 barrier=1,commit=5,data=journal,loop,noatime 0 2" ] &&
	grep -q 'untorn --guard journal *SAFE' "$scratch/out"
ok $? "mkfs-journal on a new file: mounted data=journal,noatime, fstab line, journal guard SAFE"
sed 's/^/# /' "$scratch/out" | head -4

dev=$(findmnt -rn -o SOURCE "$scratch/mnt-j")
jsize=$(dumpe2fs -h "$dev" 2>/dev/null | sed -n 's/^Total journal size: *//p')
[ "$jsize" = 256M ] &&
	grep -q "journal 256 MiB (auto: 4 x 50 MB/s x 5 s = 1000 MiB, capped at 256 MiB, a quarter of the 1024 MiB filesystem)" "$scratch/out"
ok $? "auto journal, its printed formula agreeing with it: 4 x 50 MB/s x 5 s = 1000 MiB capped at a quarter of 1 GiB: 256M (dumpe2fs: $jsize)"

# refusals: nothing may change
"$top/scripts/mkfs-journal" "$dev" --mount "$scratch/mnt-x" --force >"$scratch/err" 2>&1; r1=$?
grep -q "is mounted" "$scratch/err" && [ $r1 -eq 2 ] && [ ! -e "$scratch/mnt-x" ]
ok $? "a mounted device is refused even with --force (exit $r1): $(head -1 "$scratch/err")"
unmount_detach "$scratch/mnt-j"
sum_before=$(sha256sum "$scratch/j.img" | cut -d' ' -f1)
"$top/scripts/mkfs-journal" "$scratch/j.img" --mount "$scratch/mnt-j" >"$scratch/err" 2>&1; r2=$?
[ $r2 -eq 2 ] && grep -q "already holds a ext4 filesystem; add --force" "$scratch/err" &&
	[ "$(sha256sum "$scratch/j.img" | cut -d' ' -f1)" = "$sum_before" ] && [ -z "$(losetup -j "$scratch/j.img")" ]
ok $? "an existing filesystem without --force: exit $r2, file unchanged, no loop device left"

"$top/scripts/mkfs-journal" "$scratch/j.img" --mount "$scratch/mnt-j" --force --journal-size 128M --commit 2 >"$scratch/out" 2>&1
rc=$?
dev=$(findmnt -rn -o SOURCE "$scratch/mnt-j")
[ $rc -eq 0 ] && [ "$(dumpe2fs -h "$dev" 2>/dev/null | sed -n 's/^Total journal size: *//p')" = 128M ] &&
	findmnt -rn -o OPTIONS "$scratch/mnt-j" | grep -q 'commit=2'
ok $? "--force --journal-size 128M --commit 2: remade with those"
unmount_detach "$scratch/mnt-j"

bad=0
for args in "--mount" "$scratch/j.img --mount $scratch/m --commit soon" "$scratch/j.img --mount $scratch/m --bogus" \
	    "$scratch --mount $scratch/m" "$scratch/none.img --mount $scratch/m" "$scratch/j.img"; do
	# shellcheck disable=SC2086
	"$top/scripts/mkfs-journal" $args >/dev/null 2>"$scratch/err"
	r=$?
	if [ $r -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ]; then
		bad=1
		echo "# mkfs-journal $args: exit $r: $(cat "$scratch/err")"
	fi
done
[ $bad -eq 0 ] && [ ! -e "$scratch/none.img" ] && [ "$(sha256sum "$scratch/j.img" | cut -d' ' -f1)" != "$sum_before" ]
ok $? "bad input (no target, bad --commit, unknown option, a directory, a missing file without --size, no --mount): exit 2, one line"

"$top/scripts/mkfs-journal" --help | grep -q "4 x rate x commit"
ok $? "--help explains the journal sizing rule"

"$top/scripts/mkfs-atomic" "$scratch/a.img" --size 1G --mount "$scratch/mnt-a" >"$scratch/out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/out" | head -3
krel=$(uname -r)
kmaj=${krel%%.*} kmin=${krel#*.}
kmin=${kmin%%[!0-9]*}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 16 ]; }; then
	[ $rc -eq 0 ] && grep -q 'untorn --guard atomic *SAFE' "$scratch/out" &&
		[ "$(findmnt -rn -o FSTYPE "$scratch/mnt-a")" = xfs ] &&
		findmnt -rn -o OPTIONS "$scratch/mnt-a" | grep -q 'max_atomic_write='
	ok $? "mkfs-atomic: XFS reflink mounted with max_atomic_write=, atomic guard SAFE for 16k pages"
else
	[ $rc -eq 2 ] && grep -q "Linux 6.16+" "$scratch/out" && [ ! -e "$scratch/a.img" ]
	ok $? "mkfs-atomic on $krel (before 6.16): refused, nothing made"
fi
mountpoint -q "$scratch/mnt-a" && unmount_detach "$scratch/mnt-a"
[ -e "$scratch/a.img" ] || { truncate -s 1G "$scratch/a.img" && mkfs.xfs -q -f "$scratch/a.img"; }
"$top/scripts/mkfs-atomic" "$scratch/a.img" --mount "$scratch/mnt-a" >/dev/null 2>"$scratch/err"; r=$?
[ $r -eq 2 ] && grep -q "already holds a xfs filesystem" "$scratch/err"
ok $? "mkfs-atomic refuses an existing XFS without --force (exit $r)"

# every value and every combination is checked before anything is made
bad=0
n=$scratch/new.img m=$scratch/mnt-new
while read -r script pat args; do
	[ -n "$script" ] || continue
	# shellcheck disable=SC2086
	"$top/scripts/$script" $args >"$scratch/out" 2>"$scratch/err"
	r=$?
	if [ $r -ne 2 ] || [ "$(wc -l <"$scratch/err")" -ne 1 ] || ! grep -q -- "$pat" "$scratch/err" ||
	   [ -s "$scratch/out" ] || [ -e "$n" ] || [ -e "$m" ] || [ -n "$(losetup -j "$n" 2>/dev/null)" ]; then
		bad=1
		echo "# $script $args: exit $r: $(cat "$scratch/err" "$scratch/out")"
	fi
done <<EOF2
mkfs-journal not.a.power.of.two $n --size 256M --page-size 3k --mount $m
mkfs-journal 200.bytes $n --size 200 --mount $m
mkfs-journal more.than.half $n --size 1G --journal-size 600M --mount $m
mkfs-journal 4.MiB $n --size 1G --journal-size 3M --mount $m
mkfs-journal takes.a.size $n --size 1Q --mount $m
mkfs-atomic not.a.power.of.two $n --size 1G --max-atomic-write 3k --mount $m
mkfs-atomic smaller.than.the.64k.pages $n --size 1G --page-size 64k --max-atomic-write 16k --mount $m
mkfs-atomic 300M $n --size 100M --mount $m
EOF2
ok $bad "bad values and unsafe combinations (3k pages, --size 200, journal > half, atomic unit < page, ...): exit 2, one line, nothing made"

# an existing file too small: the fix named is one that works for it
# (--size is for new files: it was once the only advice, and ignored)
small=$scratch/small.img
truncate -s 64M "$small"
bad=""
for args in "" "--size 1G"; do
	# shellcheck disable=SC2086
	"$top/scripts/mkfs-journal" "$small" $args --mount "$m" --dry-run >"$scratch/out" 2>"$scratch/err"
	r=$?
	echo "# $(cat "$scratch/err")"
	[ $r -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && [ ! -s "$scratch/out" ] || bad="$bad [$args: exit $r]"
done
"$top/scripts/mkfs-journal" "$small" --mount "$m" >/dev/null 2>"$scratch/err"
grep -q "truncate -s 1G $small" "$scratch/err" || bad="$bad [no truncate named]"
[ "$(stat -c %s "$small")" -eq $((64 << 20)) ] && [ ! -e "$m" ] && [ -z "$(losetup -j "$small")" ] ||
	bad="$bad [changed]"
[ -z "$bad" ] || echo "# failed:$bad"
[ -z "$bad" ]
ok $? "an existing 64M file: one line naming truncate -s (not --size), --size with it refused, nothing changed"

"$top/scripts/mkfs-journal" "$n" --size 1G --mount "$m" --dry-run >"$scratch/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "mkfs.ext4 -q -F -b 4096 -J size=256 /dev/loop" "$scratch/out" &&
	grep -q "mount -t ext4 -o data=journal,commit=5,barrier=1,noatime /dev/loop" "$scratch/out" &&
	grep -q "^  $n $m ext4 loop,data=journal" "$scratch/out" &&
	[ ! -e "$n" ] && [ ! -e "$m" ] && [ -z "$(losetup -j "$n" 2>/dev/null)" ]
ok $? "--dry-run prints the mkfs and mount commands and the fstab line, and makes nothing"
sed 's/^/# /' "$scratch/out"

# a full filesystem (a 1 MiB tmpfs): the sparse file would be made, and
# mkfs fail on it with "Input/output error"; refused first, nothing made
full=$scratch/full
mkdir -p "$full" && mount -t tmpfs -o size=1M "untorn-mkfs-test-$$" "$full" && truncate -s 200M "$full/old.img"
bad=""
cases=("mkfs-journal new.img:--size 1G" "mkfs-journal old.img:" "mkfs-atomic new.img:--size 1G --dry-run")
kernel_ok=1
krel=$(uname -r); kmaj=${krel%%.*} kmin=${krel#*.}; kmin=${kmin%%[!0-9]*}
[ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 16 ]; } || kernel_ok=0
for c in "${cases[@]}"; do
	s=${c%% *} rest=${c#* } f=$full/${rest%%:*} args=${rest#*:}
	[ "$s" = mkfs-atomic ] && [ $kernel_ok -eq 0 ] && continue
	# shellcheck disable=SC2086
	"$top/scripts/$s" "$f" $args --mount "$scratch/mnt-full" >"$scratch/out" 2>"$scratch/err"
	r=$?
	echo "# $(head -c 300 "$scratch/err")"
	[ $r -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "has 1 MiB.*; free some space there" "$scratch/err" &&
		[ ! -s "$scratch/out" ] && [ ! -e "$scratch/mnt-full" ] && [ -z "$(losetup -j "$f" 2>/dev/null)" ] ||
		bad="$bad $s:${rest%%:*}"
done
[ -z "$(ls -A "$full" | grep -vx old.img)" ] && [ "$(stat -c %b "$full/old.img")" -eq 0 ] || bad="$bad [something made]"
umount "$full"
[ -z "$bad" ]
ok $? "a file on a full filesystem (new with --size, an existing sparse one, mkfs-atomic too): one line naming the free space and the fix, exit 2, nothing made${bad:+ (failed:$bad)}"

ktap_finish
