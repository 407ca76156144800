# SPDX-License-Identifier: MIT
#
# calibrate.sh - fio's calibration of a device or of a file on one
# (source it after common.sh): the figures every benchmark prints beside
# its results so that a figure measured on one machine can be read on
# another -- random 16 KiB reads at QD1 and QD32, random 16 KiB writes,
# sequential 1 MiB reads and 4 KiB writes, a 16 KiB write with fdatasync.
# Used by scripts/emulate-hdd (its models) and scripts/lib/target.sh (a
# user's own disk or directory).  fio writes over what it is given.

# fio_run PATH RW BS SECONDS [fio args]: one fio job, QD1, O_DIRECT;
# prints "iops MB/s mean-latency-ms" (scripts/lib/fio_calibration.py)
fio_run() {
	local path=$1 rw=$2 bs=$3 secs=$4
	shift 4
	fio --name=cal --filename="$path" --direct=1 --rw="$rw" --bs="$bs" --iodepth=1 \
		--runtime="$secs" --time_based --output-format=json "$@" 2>/dev/null | py "$top/scripts/lib/fio_calibration.py" figures 2>/dev/null
}

# fio_measured PATH WHAT RESULT: a fio run that did I/O, or stop at
# once: zeros mean the device went away or refused O_DIRECT, and figures
# from it would pass for a disk's
fio_measured() {
	local iops=${3%% *}
	[ -n "$iops" ] && [ "$iops" -gt 0 ] 2>/dev/null && return 0
	if [ -b "$1" ]; then
		die "calibration of $1: $2 measured nothing (fio: ${iops:-no result}, device size $(blockdev --getsize64 "$1" 2>/dev/null || echo unknown)); the device went away or stopped answering"
	fi
	die "calibration on $1: $2 measured nothing (fio: ${iops:-no result}); does this filesystem take O_DIRECT? (fio --name=t --filename=$1 --direct=1 --rw=read --bs=16k --size=1m says why)"
}

# fio_calibrate PATH SECONDS [SIZE]: the six jobs on PATH (a block
# device, or a file of SIZE bytes fio lays out first), their results
# ("iops MB/s latency-ms") in the global array fio_results for
# fio_json and fio_table
fio_results=()
# the jobs, in the order of fio_results and of fio_json's fields: what
# the table and the errors call each, and its fio arguments
fio_jobs=("random 16 KiB reads|randread 16k"
	  "random 16 KiB reads, QD32 (NCQ)|randread 16k --ioengine=libaio --iodepth=32"
	  "random 16 KiB writes|randwrite 16k"
	  "sequential 1 MiB reads|read 1m"
	  "sequential 4 KiB writes|write 4k"
	  "16 KiB write + fdatasync|write 16k --fdatasync=1")
fio_calibrate() {
	local path=$1 secs=$2 size=() r job
	need_tool fio fio
	[ -z "${3:-}" ] || size=(--size="$3")
	fio_results=()
	for job in "${fio_jobs[@]}"; do
		set -- ${job#*|}
		r=$(fio_run "$path" "$1" "$2" "$secs" "${@:3}" "${size[@]}")
		# nothing completed in the time (an fdatasync of a busy device
		# can take seconds): once more, five times as long
		[ "${r%% *}" != 0 ] || r=$(fio_run "$path" "$1" "$2" $((secs * 5)) "${@:3}" "${size[@]}")
		fio_measured "$path" "${job%%|*}" "$r"
		fio_results+=("$r")
	done
}

# fio_json PATH: fio_calibrate's results as one JSON object (device,
# randread_16k_iops, randread_16k_qd32_iops, randwrite_16k_iops,
# seqread_1m_mb_s, seqwrite_4k_iops, seqwrite_4k_mb_s, fdatasync_ms)
fio_json() {
	py "$top/scripts/lib/fio_calibration.py" json "$1" "${fio_results[@]}"
}

# fio_table SECONDS: fio_calibrate's results as a table
fio_table() {
	local i
	printf '%-34s %10s %10s %12s\n' "fio, QD1, O_DIRECT, ${1}s each" IOPS MB/s "latency ms"
	for i in "${!fio_jobs[@]}"; do
		set -- ${fio_results[$i]}
		printf '%-34s %10s %10s %12s\n' "${fio_jobs[$i]%%|*}" "$1" "$2" "$3"
	done
}
