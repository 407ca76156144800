# SPDX-License-Identifier: MIT
#
# mkfs-common.sh - what scripts/mkfs-journal and scripts/mkfs-atomic share
# (source it): the checks before a mkfs (root, tools, the target is a
# block device or a file, not mounted, empty unless --force), attaching a
# file to a loop device, the report after mounting (fstab line and
# untorn-fscheck's verdicts), and what --dry-run prints instead.  Sets and
# uses: prog, top, target, force, dev, loop_attached, size, size_b, page,
# page_b, dir, is_file.

. "$top/scripts/lib/common.sh"

# is_mounted DEVICE: mounted anywhere (also as the source of a loop
# device's mount)
is_mounted() {
	findmnt -rn -S "$1" >/dev/null 2>&1
}

# check_args: the values every mkfs script takes (size, page size, mount
# point), checked before anything is touched; sets size_b and page_b
# (bytes; size_b empty without --size)
check_args() {
	size_b=""
	[ -z "$size" ] || need_size --size "$size" size_b
	need_size --page-size "$page" page_b
	is_power_of_two "$page_b" && [ "$page_b" -ge 4096 ] && [ "$page_b" -le 65536 ] ||
		die "--page-size $page is not a power of two from 4k to 64k (InnoDB's page sizes); use e.g. --page-size 16k"
	case $dir in
	/*) ;;
	*) die "--mount takes an absolute path (it goes into /etc/fstab), not '$dir'" ;;
	esac
	[ -d "$(dirname "$dir")" ] || die "$(dirname "$dir") does not exist; create it or choose another --mount DIR"
	[ ! -e "$dir" ] || [ -d "$dir" ] || die "$dir exists and is not a directory"
}

is_power_of_two() {	# BYTES
	[ "$1" -gt 0 ] && [ $(($1 & ($1 - 1))) -eq 0 ]
}

# target_bytes: how big the filesystem will be, known before anything is
# made (a device's size, an existing file's, or --size for a new file)
target_bytes() {
	if [ -b "$target" ]; then
		blockdev --getsize64 "$target"
	elif [ -e "$target" ]; then
		stat -c %s "$target"
	else
		echo "$size_b"
	fi
}

# need_bytes MIN MIN-TEXT WHY: the filesystem will be at least MIN bytes, or the
# one line naming the fix that works for this target: --size for a new
# file, growing an existing file (--size is for new files), another device
need_bytes() {
	local have fix
	have=$(target_bytes)
	[ "$have" -ge "$1" ] && return 0
	if [ -b "$target" ]; then
		fix="choose a device of at least $2"
	elif [ -e "$target" ]; then
		fix="grow the file first (truncate -s 1G $target) or give a new file with --size 1G"
	else
		fix="give e.g. --size 1G"
	fi
	die "$target would be $(human "$have") ($have bytes); $3 at least $2: $fix"
}

# need_room: a file target's filesystem has room to be written where the
# file lives.  The file is sparse: mkfs fills its metadata and journal,
# and the filesystem on it every block it is given, so it must have its
# whole size free there -- else mkfs or a later write fails with an I/O
# error (a new file: --size; an existing one: what it has not allocated
# yet).  One line naming the fix; a device needs none.
need_room() {
	local where have need alloc
	[ "$is_file" -eq 1 ] || return 0
	where=$(dirname "$target")
	if [ -e "$target" ]; then
		alloc=$(($(stat -c '%b * %B' "$target")))
		need=$(($(stat -c %s "$target") - alloc))
	else
		need=$size_b
	fi
	[ "$need" -gt 0 ] || return 0
	have=$(df -B1 --output=avail "$where" | tail -1 | tr -d ' ')
	[ "$have" -ge "$need" ] && return 0
	local fs
	fs=$(findmnt -no TARGET -T "$where")
	[ -e "$target" ] &&
		die "$target: the filesystem in it will fill $(human "$need") of it not yet allocated, and $fs has $(human "$have") free; free some space there, or move the file to a filesystem with room"
	die "$target: a $(human "$need") file needs $(human "$need") free on $fs as the filesystem in it fills, and it has $(human "$have"); free some space there, give a smaller --size, or put the file on a filesystem with room"
}

# plan_and_exit MKFS-COMMAND FSTYPE OPTIONS: what --dry-run prints
# instead of doing it; exit 0
plan_and_exit() {
	local mkfs=$1 fstype=$2 opts=$3 dev=$target src=$target
	echo "$prog: --dry-run: nothing is changed; the steps would be:"
	if [ "$is_file" -eq 1 ]; then
		[ -e "$target" ] || echo "  truncate -s $size_b $target       # a sparse file of $(human "$size_b")"
		dev=$(losetup -f 2>/dev/null) || die "no free loop device for $target (modprobe loop, or free one: losetup -D)"
		echo "  losetup -f --show --direct-io=on $target   # the first free loop device, now $dev"
		src="$(readlink -f "$target")"
	fi
	echo "  $mkfs $dev"
	[ -d "$dir" ] || echo "  mkdir $dir"
	echo "  mount -t $fstype -o $opts $dev $dir"
	echo "/etc/fstab line:"
	if [ "$is_file" -eq 1 ]; then
		echo "  $src $dir $fstype loop,$opts 0 2"
	else
		echo "  UUID=(the new filesystem's: blkid $dev) $dir $fstype $opts 0 2"
	fi
	exit 0
}

# check_target: refuses what must not be touched; sets is_file
check_target() {
	local fstype
	is_file=0
	if [ -b "$target" ]; then
		[ -z "$size" ] || die "--size is for a new file, and $target is a device of $(human "$(target_bytes)"); drop --size"
		is_mounted "$target" && die "$target is mounted ($(findmnt -rn -o TARGET -S "$target" | head -1)); unmount it first"
		fstype=$(blkid -p -o value -s TYPE "$target" 2>/dev/null)
		[ -n "$fstype" ] && [ "$force" -eq 0 ] &&
			die "$target already holds a $fstype filesystem; add --force to destroy it"
	elif [ -e "$target" ] && [ ! -f "$target" ]; then
		die "$target is neither a block device nor a regular file"
	else
		is_file=1
		if [ -e "$target" ]; then
			[ -z "$size" ] ||
				die "--size is for a new file, and $target exists ($(human "$(target_bytes)")); drop --size, or grow it first: truncate -s $size $target"
			losetup -j "$target" 2>/dev/null | grep -q . &&
				die "$target is attached to $(losetup -j "$target" | cut -d: -f1); detach it first (losetup -d)"
			fstype=$(blkid -p -o value -s TYPE "$target" 2>/dev/null)
			[ -n "$fstype" ] && [ "$force" -eq 0 ] &&
				die "$target already holds a $fstype filesystem; add --force to destroy it"
		else
			# a file is never made under /dev: that path meant a device
			case $target in
			/dev/*) die "$target: no such block device; give an existing one (lsblk lists them), or a file outside /dev" ;;
			esac
			[ -d "$(dirname "$target")" ] ||
				die "$(dirname "$target") does not exist; give a file in an existing directory, or a block device"
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
		truncate -s "$size_b" "$target" 2>/dev/null || die "cannot create $target of $(human "$size_b")"
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

# fscheck_cmd: untorn-fscheck from the tree or PATH (empty if neither)
fscheck_cmd() {
	local f=${FSCHECK:-${UNTORN_FSCHECK:-}}
	if [ -n "$f" ] && [ -x "$f" ]; then
		echo "$f"
	else
		command -v untorn-fscheck || true
	fi
}

# atomic_guard_safe DIR PAGE: untorn-fscheck's atomic verdict for pages of
# PAGE on DIR; sets verdict to its reason.  Without untorn-fscheck it
# cannot tell, says so, and lets the report below say it is not built.
atomic_guard_safe() {
	local f safe=""
	f=$(fscheck_cmd)
	[ -n "$f" ] || { verdict="untorn-fscheck not built"; return 0; }
	verdict=""
	{ read -r safe; IFS= read -r verdict; } < <("$f" "$1" --page-size "$2" --json |
		jget - untorn_atomic.safe untorn_atomic.reason)
	[ "$safe" = True ]
}

# report MOUNTPOINT FSTYPE OPTIONS PAGE: the fstab line and the verdicts
report() {
	local dir=$1 fstype=$2 opts=$3 page=$4 fscheck
	echo
	echo "/etc/fstab line:"
	# the one rule (fstab_line, common.sh): the mount's options, by UUID
	# (a file by its path, with loop)
	echo "  $(fstab_line "$dev" "$dir" "$fstype" "$(findmnt -rn -o OPTIONS "$dir")" "$opts")"
	echo
	fscheck=$(fscheck_cmd)
	if [ -n "$fscheck" ]; then
		"$fscheck" "$dir" --page-size "$page" | sed 's/^/  /'
	else
		echo "  (untorn-fscheck not built: run make, then untorn-fscheck $dir)"
	fi
	return 0
}

