# SPDX-License-Identifier: MIT
#
# bt.sh - starting and stopping bpftrace scripts in the background, shared
# by scripts/profile and tests/ebpf_test.sh, jw_test.sh (source it).
#
# bash starts background jobs with SIGINT ignored, and bpftrace only
# prints its maps when SIGINT stops it: env --default-signal undoes the
# inheritance.  Every script in ebpf/ prints "Tracing ..." from BEGIN,
# which runs once all of its probes are attached.

# bt_mount_fs: tracefs mounted (1 if it cannot be) and debugfs if it can
# be; what this mounted goes in bt_mounted, for bt_umount_fs
bt_mounted=()
bt_mount_fs() {
	local fs dir
	for fs in tracing:tracefs debug:debugfs; do
		dir=/sys/kernel/${fs%%:*}
		mountpoint -q "$dir" && continue
		if mount -t "${fs##*:}" nodev "$dir" 2>/dev/null; then
			bt_mounted+=("$dir")
		elif [ "$fs" = tracing:tracefs ]; then
			return 1
		fi
	done
}

bt_umount_fs() {
	local dir
	for dir in "${bt_mounted[@]}"; do umount "$dir" 2>/dev/null; done
	bt_mounted=()
}

# bt_launch OUT ERR SCRIPT ARGS...: starts it, its pid in bt_launched
bt_launch() {
	local out=$1 err=$2
	shift 2
	env --default-signal=INT bpftrace -B none "$@" >"$out" 2>"$err" &
	bt_launched=$!
}

# bt_wait_attached PID OUT: returns once the script is attached, 1 if it
# died first
bt_wait_attached() {
	until grep -q '^Tracing' "$2" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
}

# bt_stop_pid PID SIGNAL: sends SIGNAL (INT: the script prints its maps),
# repeated once a second in case one goes unnoticed, SIGTERM after 300 s
# (printing the maps took bpftrace over 30 s in a busy emulated guest;
# saying so on stderr, as its maps are then lost), and reaps it
bt_stop_pid() {
	local pid=$1 sig=$2 i
	for i in $(seq 3000); do
		kill -0 "$pid" 2>/dev/null || break
		[ $((i % 10)) -eq 1 ] && kill -"$sig" "$pid" 2>/dev/null
		if [ "$i" -eq 3000 ]; then
			echo "bt.sh: bpftrace (pid $pid) still ran 300 s after SIG$sig: stopped with SIGTERM, its maps are lost" >&2
			kill -TERM "$pid" 2>/dev/null
		fi
		sleep 0.1
	done
	wait "$pid" 2>/dev/null
}

# bt_prog_runtime: "RUNS NS" summed over the BPF programs bpftrace
# processes hold: each program's run_cnt and run_time_ns from its fd's
# fdinfo, counted once per prog_id.  The kernel counts them only while
# the sysctl kernel.bpf_stats_enabled is 1 (two clock reads per run).
bt_prog_runtime() {
	py "$top/scripts/lib/bpf_runtime.py"
}
