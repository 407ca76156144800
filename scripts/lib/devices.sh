# SPDX-License-Identifier: MIT
#
# devices.sh - the test devices and filesystems the benchmark scripts
# share (source it after common.sh): which filesystem makes each guard
# safe, making and mounting it, and unmounting with retries.

# the filesystem each guard is measured on:
#   doublewrite, none  ext4 data=ordered (none: with --unsafe)
#   journal            ext4 data=journal
#   atomic             XFS -m reflink=1 (O_DIRECT + RWF_ATOMIC)
guard_fs_kind() {
	case $1 in
	journal) echo ext4-journal ;;
	atomic) echo xfs ;;
	*) echo ext4-ordered ;;
	esac
}

fs_describe() {	# FS-KIND
	case $1 in
	ext4-journal) echo "ext4 data=journal" ;;
	xfs) echo "XFS reflink=1" ;;
	*) echo "ext4 data=ordered" ;;
	esac
}

fs_make() {	# FS-KIND DEVICE
	case $1 in
	xfs) mkfs.xfs -q -f -m reflink=1 "$2" ;;
	*) mkfs.ext4 -q -F -b 4096 "$2" ;;
	esac
}

fs_mount() {	# FS-KIND DEVICE DIR
	case $1 in
	ext4-journal) mount -o data=journal "$2" "$3" ;;
	*) mount "$2" "$3" ;;
	esac
}

# mnt_release DIR: unmount, retrying for a moment: a killed io_uring lets
# go of its files asynchronously
mnt_release() {
	local _
	for _ in $(seq 50); do
		mountpoint -q "$1" || return 0
		umount "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
