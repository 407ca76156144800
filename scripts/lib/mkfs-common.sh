# SPDX-License-Identifier: MIT
#
# mkfs-common.sh - what scripts/mkfs-journal and scripts/mkfs-atomic share
# (source it): the checks before a mkfs (root, tools, the target is a
# block device or a file, not mounted, empty unless --force), attaching a
# file to a loop device, and the report after mounting (fstab line and
# untorn-fscheck's verdicts).  Sets and uses: prog, top, target, force,
# dev, loop_attached, size.

. "$top/scripts/lib/common.sh"

# is_mounted DEVICE: mounted anywhere (also as the source of a loop
# device's mount)
is_mounted() {
	findmnt -rn -S "$1" >/dev/null 2>&1
}

# check_args: the values every mkfs script takes (size, page size, mount
# point), checked before anything is touched
check_args() {
	[ -z "$size" ] || parse_size_mib "$size" >/dev/null ||
		die "--size takes a size (4G, 512M), not '$size'"
	parse_size_mib "$page" >/dev/null || die "--page-size takes a size (16k), not '$page'"
	case $dir in
	/*) ;;
	*) die "--mount takes an absolute path (it goes into /etc/fstab), not '$dir'" ;;
	esac
	[ -d "$(dirname "$dir")" ] || die "$(dirname "$dir") does not exist; create it or choose another --mount DIR"
	[ ! -e "$dir" ] || [ -d "$dir" ] || die "$dir exists and is not a directory"
}

# check_target: refuses what must not be touched; sets is_file
check_target() {
	local fstype
	is_file=0
	if [ -b "$target" ]; then
		is_mounted "$target" && die "$target is mounted ($(findmnt -rn -o TARGET -S "$target" | head -1)); unmount it first"
		fstype=$(blkid -p -o value -s TYPE "$target" 2>/dev/null)
		[ -n "$fstype" ] && [ "$force" -eq 0 ] &&
			die "$target already holds a $fstype filesystem; add --force to destroy it"
	elif [ -e "$target" ] && [ ! -f "$target" ]; then
		die "$target is neither a block device nor a regular file"
	else
		is_file=1
		if [ -e "$target" ]; then
			losetup -j "$target" 2>/dev/null | grep -q . &&
				die "$target is attached to $(losetup -j "$target" | cut -d: -f1); detach it first (losetup -d)"
			fstype=$(blkid -p -o value -s TYPE "$target" 2>/dev/null)
			[ -n "$fstype" ] && [ "$force" -eq 0 ] &&
				die "$target already holds a $fstype filesystem; add --force to destroy it"
		else
			[ -n "$size" ] || die "$target does not exist; give --size (e.g. --size 4G) to create it"
		fi
	fi
}

# attach_target: dev is the block device to make the filesystem on
attach_target() {
	dev=$target
	loop_attached="" file_created=0 dir_created=0
	trap 'detach_on_error' EXIT
	[ "$is_file" -eq 1 ] || return 0
	if [ ! -e "$target" ]; then
		truncate -s "$size" "$target" 2>/dev/null || die "cannot create $target of $size"
		file_created=1
	fi
	dev=$(losetup -f --show --direct-io=on "$target") || die "no free loop device for $target (modprobe loop, or free one: losetup -D)"
	loop_attached=$dev
}

# make_mountpoint: the --mount directory (its parent exists: check_args)
make_mountpoint() {
	[ -d "$dir" ] && return 0
	mkdir "$dir" 2>/dev/null || die "cannot create $dir"
	dir_created=1
}

# detach_on_error: what this run made goes again if the filesystem was
# not mounted: the loop device, a file it created, a mount point it made
detach_on_error() {
	[ -n "$loop_attached" ] && is_mounted "$loop_attached" && return 0
	[ -n "$loop_attached" ] && losetup -d "$loop_attached" 2>/dev/null
	[ "${file_created:-0}" -eq 1 ] && rm -f "$target"
	[ "${dir_created:-0}" -eq 1 ] && rmdir "$dir" 2>/dev/null
	loop_attached="" file_created=0 dir_created=0
}

# done_ok: the filesystem is mounted; keep everything
done_ok() {
	trap - EXIT
	loop_attached="" file_created=0 dir_created=0
}

# report MOUNTPOINT FSTYPE OPTIONS PAGE: the fstab line and the verdicts
report() {
	local dir=$1 fstype=$2 opts=$3 page=$4 uuid fscheck=${FSCHECK:-$UNTORN_FSCHECK}
	uuid=$(blkid -o value -s UUID "$dev")
	echo
	echo "/etc/fstab line:"
	if [ "$is_file" -eq 1 ]; then
		echo "  $(readlink -f "$target") $dir $fstype loop,$opts 0 2"
	else
		echo "  UUID=$uuid $dir $fstype $opts 0 2"
	fi
	echo
	if [ -x "$fscheck" ]; then
		"$fscheck" "$dir" --page-size "$page" | sed 's/^/  /'
	elif command -v untorn-fscheck >/dev/null; then
		untorn-fscheck "$dir" --page-size "$page" | sed 's/^/  /'
	else
		echo "  (untorn-fscheck not built: run make, then untorn-fscheck $dir)"
	fi
	return 0
}

parse_size_mib() {	# SIZE (1G, 512M, 300, 64k) -> MiB on stdout, or fail
	local v=${1%[KkMmGgTt]} u=${1: -1}
	case $v in ''|*[!0-9]*) return 1 ;; esac
	case $u in
	[Kk]) echo $((v / 1024)) ;;
	[Mm]) echo "$v" ;;
	[Gg]) echo $((v * 1024)) ;;
	[Tt]) echo $((v * 1024 * 1024)) ;;
	*) echo "$v" ;;
	esac
}
