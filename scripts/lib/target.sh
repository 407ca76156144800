# SPDX-License-Identifier: MIT
#
# target.sh - a user's own disk or directory as a benchmark's device
# (--target DEV|DIR; source it after common.sh and calibrate.sh).
#
# A DEV is a scratch block device the benchmark makes filesystems on: it
# is refused, before anything is touched, when it or a partition of it
# is mounted or swapped on, something holds it (device-mapper, md, a
# loop device on it, an exclusive opener), or -- unless the user gave
# --destroy -- it carries a partition table or a signature (filesystem,
# LVM, RAID, swap).  A DIR is a directory on a filesystem the user
# already has: the benchmark works in a directory of its own inside it
# and removes it on every way out; refused when read-only or too small.
#
# target_facts writes what a figure measured there needs to be read on
# another machine: the device (model, rotational, logical and physical
# block, queue depth, volatile write cache, atomic write unit min/max
# and boundary) and, for a DIR, the filesystem (untorn-fscheck's facts:
# type, mount options, data mode, statx's atomic write units) and the
# jbd2 journal's size.

# dev_whole NAME: the whole disk a block device's kernel NAME (sda1,
# nvme0n1p2, loop3) belongs to, or NAME itself
dev_whole() {
	local sys=/sys/class/block/$1
	if [ -e "$sys/partition" ]; then
		basename "$(dirname "$(readlink -f "$sys")")"
	else
		echo "$1"
	fi
}

# dev_in_use DEV: one line saying how DEV (or a partition of it) is in
# use, or nothing: mounted, swap, a holder (device-mapper, md), the
# backing of a loop device, opened exclusively by a program
dev_in_use() {
	local dev=$1 name mnt part holder
	while read -r name mnt; do
		[ -n "$mnt" ] || continue
		if [ "$mnt" = "[SWAP]" ]; then
			echo "$name is in use as swap (swapoff $name first)"
		else
			echo "$name is mounted on $(printf '%b' "$mnt") (unmount it first)"
		fi
		return 0
	done < <(lsblk -nrpo NAME,MOUNTPOINT "$dev" 2>/dev/null)
	for part in "$dev" $(lsblk -nrpo NAME "$dev" 2>/dev/null); do
		name=$(basename "$(readlink -f "$part")")
		for holder in /sys/class/block/"$name"/holders/*; do
			[ -e "$holder" ] || continue
			echo "$part is held by $(basename "$holder") (device-mapper, md or LVM; remove that first: dmsetup ls, cat /proc/mdstat)"
			return 0
		done
		holder=$(losetup -j "$part" 2>/dev/null | cut -d: -f1 | head -1)
		if [ -n "$holder" ]; then
			echo "$part is the backing of loop device $holder (losetup -d $holder first)"
			return 0
		fi
	done
	py -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL))' "$dev" 2>/dev/null ||
		echo "$dev is opened exclusively by another program (fuser -v $dev names it)"
}

# dev_signature DEV: what DEV carries that a mkfs would destroy (a
# partition table, a filesystem, LVM, RAID or swap signature), or nothing
dev_signature() {
	local pt fs
	pt=$(blkid -p -o value -s PTTYPE "$1" 2>/dev/null)
	fs=$(blkid -p -o value -s TYPE "$1" 2>/dev/null)
	if [ -n "$pt" ]; then
		echo "a partition table ($pt)"
	elif [ -n "$fs" ]; then
		echo "a filesystem or volume signature ($fs)"
	fi
}

# target_check_dev DEV NEED-BYTES DESTROY: refuses a device that must not
# be touched or is too small (one line, exit 2)
target_check_dev() {
	local dev=$1 need=$2 destroy=$3 why have
	[ -b "$dev" ] || die "--target $dev: not a block device (give a scratch disk, or a directory)"
	why=$(dev_in_use "$dev")
	[ -z "$why" ] || die "--target $dev: refused, $why"
	why=$(dev_signature "$dev")
	[ -z "$why" ] || [ "$destroy" -eq 1 ] ||
		die "--target $dev: refused, it holds $why; add --destroy to make filesystems over it (everything on it is lost)"
	have=$(blockdev --getsize64 "$dev")
	[ "$have" -ge "$need" ] ||
		die "--target $dev: $(human "$have") is too small, the benchmark needs $(human "$need"); give a larger device or fewer --rows"
}

# target_check_dir DIR NEED-BYTES [FIX] [WHAT] [NAME]: refuses a
# directory a benchmark cannot work in (one line, exit 2).  FIX is what
# to do when it is too small (default: fewer --rows), WHAT what needs
# the room (default "the benchmark"), NAME how the line names DIR
# (default "--target DIR")
target_check_dir() {
	local dir=$1 need=$2 fix=${3:-free some space there or give fewer --rows}
	local what=${4:-the benchmark} name=${5:---target $1} avail
	local why
	why=$(path_unreachable "$dir")
	[ -z "$why" ] || die "$name: $why"
	[ -d "$dir" ] || die "$name: no such directory or block device"
	# the cause, not test -w's answer (a read-only mount is "not
	# writable" to root too)
	why=$(dir_unwritable "$dir")
	[ -z "$why" ] || die "$name: $why"
	avail=$(df -B1 --output=avail "$dir" | tail -1 | tr -d ' ')
	[ "$avail" -ge "$need" ] ||
		die "$name: $(human "$avail") free, $what needs $(human "$need"); $fix"
}

# target_need_bytes ROWS [LOG-BYTES]: room for a store of ROWS rows
# (about 200 bytes a row in 16 KiB pages at the fill a random load
# leaves, doubled), its log (64 MiB unless given) and doublewrite area,
# and the calibration's 1 GiB file (UNTORN_TARGET_NEED overrides it: the
# tests' full disk)
target_need_bytes() {
	echo "${UNTORN_TARGET_NEED:-$(($1 * 400 + (1216 << 20) + (${2:-64 << 20})))}"
}

# target_facts PATH JSON-FILE [DEVICE]: the target's facts as one JSON
# object, and printed as one line; DEVICE is the block device under PATH
# when PATH is a directory (found from the mount otherwise)
target_facts() {
	local fscheck=""
	if [ -d "$1" ]; then
		fscheck=$("$UNTORN_FSCHECK" "$1" --json 2>/dev/null) || true
	fi
	py "$top/scripts/lib/target_facts.py" "$1" "$2" "${3:-}" "$fscheck"
}

# target_calibrate PATH OUT-JSON SECONDS: fio's figures for the target
# (writes over a device; in a directory, a 1 GiB file it removes), saved
# and printed
target_calibrate() {
	local path=$1 file=""
	if [ -d "$path" ]; then
		file=$path/fio-calibration
		fio_calibrate "$file" "$3" 1G
		rm -f "$file"
		fio_json "$file" > "$2"
	else
		fio_calibrate "$path" "$3"
		fio_json "$path" > "$2"
	fi
	fio_table "$3" | sed 's/^/  /'
}
