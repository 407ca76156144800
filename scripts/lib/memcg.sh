# SPDX-License-Identifier: MIT
#
# memcg.sh - a memory cgroup of the caller's own for one benchmark run,
# so that every guard runs in the same memory: the buffer pool and the
# page cache its files hold are charged to it alike, and the kernel
# reclaims that cache within the limit (bench-matrix --memory).  Made
# under the caller's own memory cgroup, cgroup v2 (memory.max,
# memory.peak) or v1 (memory.limit_in_bytes, memory.max_usage_in_bytes),
# named for the caller's pid, one for each run (its peak is the run's);
# memcg_remove takes it away.  Source it after common.sh.

memcg_dir="" memcg_kind=""

# memcg_root: the memory cgroup this process is in, as a directory: v2's
# unified tree where it has the memory controller, else v1's
memcg_root() {
	local line path
	while IFS= read -r line; do
		case $line in
		0::*)
			path=${line#0::}
			for m in /sys/fs/cgroup /sys/fs/cgroup/unified; do
				[ -f "$m/cgroup.controllers" ] && grep -qw memory "$m/cgroup.controllers" &&
					[ -d "$m$path" ] && { echo "v2 $m$path"; return 0; }
			done ;;
		*:memory:*)
			path=${line#*:memory:}
			[ -d "/sys/fs/cgroup/memory$path" ] && { echo "v1 /sys/fs/cgroup/memory$path"; return 0; } ;;
		esac
	done </proc/self/cgroup
	return 1
}

# memcg_make LIMIT-BYTES: a memory cgroup of LIMIT bytes (swap none) in
# memcg_dir; exit 2 saying why where there is none to be had
memcg_make() {
	local kind root
	memcg_remove
	read -r kind root <<<"$(memcg_root)" ||
		die "--memory: no memory cgroup controller here (cgroup v1 or v2 with memory); drop --memory"
	memcg_dir=$root/untorn-memcg-$$
	memcg_kind=$kind
	if [ "$kind" = v2 ]; then
		grep -qw memory "$root/cgroup.subtree_control" 2>/dev/null ||
			echo +memory >"$root/cgroup.subtree_control" 2>/dev/null
		mkdir "$memcg_dir" 2>/dev/null && echo "$1" >"$memcg_dir/memory.max" &&
			{ echo 0 >"$memcg_dir/memory.swap.max"; true; } 2>/dev/null
	else
		mkdir "$memcg_dir" 2>/dev/null && echo "$1" >"$memcg_dir/memory.limit_in_bytes"
	fi || { rmdir "$memcg_dir" 2>/dev/null; memcg_dir=""; die "--memory: cannot make a memory cgroup in $root (root, and a controller this process may use); drop --memory"; }
}

# memcg_run CMD...: CMD in the cgroup (and its children with it)
memcg_run() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$memcg_dir" "$@"
}

# memcg_peak: the most memory the cgroup was charged with, in bytes
# (pool, page cache, kernel's); 0 where the kernel does not say
memcg_peak() {
	if [ "$memcg_kind" = v2 ]; then
		cat "$memcg_dir/memory.peak" 2>/dev/null || echo 0
	else
		cat "$memcg_dir/memory.max_usage_in_bytes" 2>/dev/null || echo 0
	fi
}

# memcg_remove: the cgroup gone (its charges go to the parent)
memcg_remove() {
	local i=0
	[ -n "$memcg_dir" ] && [ -d "$memcg_dir" ] || { memcg_dir=""; return 0; }
	# a task the kernel is still taking out of it (an exiting thread of
	# the run) keeps it busy for a moment: wait for it to leave, 10 s at
	# most, then say what is left rather than leave it unsaid
	until rmdir "$memcg_dir" 2>/dev/null; do
		if [ $i -ge 100 ] || [ ! -d "$memcg_dir" ]; then
			[ ! -d "$memcg_dir" ] ||
				echo "$prog: cannot remove the memory cgroup $memcg_dir (tasks: $(tr '\n' ' ' <"$memcg_dir/cgroup.procs" 2>/dev/null)); rmdir it once they end" >&2
			break
		fi
		i=$((i + 1))
		sleep 0.1
	done
	memcg_dir=""
}
