# SPDX-License-Identifier: MIT
#
# loopfs.sh - loop filesystems for the root tests (source it after
# setting $scratch): `loopfs NAME SIZE MKFS-CMD MOUNT-OPTS` makes
# $scratch/NAME.img, attaches it with direct I/O and mounts it at
# $scratch/NAME (its device in $dev and in dev_NAME); `loopfs_cleanup`,
# from the test's EXIT trap, unmounts and detaches every one of them.

loopfs_loops=()
loopfs_mounts=()

loopfs() {
	local img=$scratch/$1.img dir=$scratch/$1
	truncate -s "$2" "$img"
	$3 "$img" >/dev/null 2>&1 || return 1
	dev=$(losetup -f --show --direct-io=on "$img") || return 1
	loopfs_loops+=("$dev")
	mkdir -p "$dir"
	mount ${4:+-o "$4"} "$dev" "$dir" || return 1
	loopfs_mounts+=("$dir")
	eval "dev_$1=$dev"
}

loopfs_cleanup() {
	local m l
	for m in "${loopfs_mounts[@]}"; do umount "$m" 2>/dev/null; done
	for l in "${loopfs_loops[@]}"; do losetup -d "$l" 2>/dev/null; done
}
