# SPDX-License-Identifier: MIT
#
# devices.sh - the test devices and filesystems the benchmark scripts
# share (source it after common.sh): the devices (ssd, hdd, cloud) set up
# and calibrated, which filesystem makes each guard safe, making and
# mounting it, and unmounting with retries.

# the filesystem each guard is measured on, as its table entry says
# (`untorn guards`): ext4-ordered (doublewrite; none with --unsafe),
# ext4-journal (journal), xfs (atomic: XFS -m reflink=1, O_DIRECT +
# RWF_ATOMIC)
guard_fs_kind() {
	guard_fact "$1" bench_fs
}

fs_describe() {	# FS-KIND
	case $1 in
	ext4-journal) echo "ext4 data=journal" ;;
	xfs) echo "XFS reflink=1" ;;
	*) echo "ext4 data=ordered" ;;
	esac
}

# the size of a device or an image file in MiB
target_mib() {
	if [ -b "$1" ]; then
		echo $(($(blockdev --getsize64 "$1") >> 20))
	else
		echo $(($(stat -c %s "$1") >> 20))
	fi
}

# data=journal gets the jbd2 journal mkfs-journal would give it (for its
# default 50 MB/s and 5 s commits: 1 GiB on the 4 GiB test devices), not
# mkfs.ext4's default (64 MiB there), which makes jbd2 write pages home
# far more often than a data=journal server's would; or FS_JBD2_MIB's
# (bench-matrix --log-room: the journal's share of the room)
fs_make() {	# FS-KIND DEVICE [SECTOR-SIZE]: XFS's sector as the device's
	case $1 in
	xfs) mkfs.xfs -q -f -m reflink=1 ${3:+-s size="$3"} "$2" ;;
	ext4-journal)
		mkfs.ext4 -q -F -b 4096 -J size="${FS_JBD2_MIB:-$(jbd2_journal_mib 50 5 "$(target_mib "$2")")}" "$2" ;;
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

# bench_dev_up KIND WORK OUT NAME: the device a benchmark runs on, in
# the globals dev, model and hddname (the emulated disk's NAME, empty
# for ssd); the models are calibrated with fio, printed and saved as
# OUT/KIND-calibration.json.  IMAGE (optional, global): start the
# device from a copy of this disk image (made at full speed elsewhere);
# such a device is not calibrated (fio would write over it).
#   ssd    a loop device, direct I/O, on a 4 GiB file in WORK
#   hdd    scripts/emulate-hdd, the 7200 rpm model
#   cloud  scripts/emulate-hdd --profile cloud-ssd
bench_dev_up() {
	local img=${IMAGE:-}
	case $1 in
	ssd)
		if [ -n "$img" ]; then
			cp --sparse=always "$img" "$2/ssd.img" || return 1
		else
			truncate -s 4G "$2/ssd.img" || return 1
		fi
		dev=$(losetup -f --show --direct-io=on "$2/ssd.img") || return 1
		model="ssd: loop device, direct I/O, on a file of $(df --output=source "$2" | tail -1)"
		hddname=""
		return 0
		;;
	hdd)
		model="hdd: scripts/emulate-hdd model (seek 0.5..6 ms by sqrt distance, 7200 rpm with rotational position, 190 MB/s, flush 4 ms, NCQ 32)"
		set -- "$@" --profile hdd ;;
	cloud)
		model="cloud: scripts/emulate-hdd --profile cloud-ssd (0.1 ms a request, 125 MB/s, flush 1 ms)"
		set -- "$@" --profile cloud-ssd ;;
	*) return 1 ;;
	esac
	hddname=$4
	dev=$("$top/scripts/emulate-hdd" start --name "$4" --size 4G "$5" "$6" ${img:+--image "$img"}) ||
		{ hddname=""; return 1; }
	# fio would write over the image's filesystem
	[ -z "$img" ] || return 0
	echo "calibration of $dev ($model):"
	# once, as JSON, and printed from it: each calibration is six fio runs
	stoppable "$top/scripts/emulate-hdd" calibrate "$dev" --seconds 3 --json > "$3/$1-calibration.json" || return 1
	py -c 'import json, sys; print("  fio: " + ", ".join("%s %s" % kv for kv in json.load(open(sys.argv[1])).items() if kv[0] != "device"))' \
		"$3/$1-calibration.json"
}

# bench_dev_down WORK: removes what bench_dev_up set up (unmount first)
bench_dev_down() {
	if [ -n "$hddname" ]; then
		"$top/scripts/emulate-hdd" stop "$hddname"
		hddname=""
	elif [ -n "$dev" ]; then
		losetup -d "$dev"
		rm -f "$1/ssd.img"
	fi
	dev=""
}
