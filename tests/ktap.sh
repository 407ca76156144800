# SPDX-License-Identifier: MIT
#
# ktap.sh - KTAP helpers for the shell tests (source it): a plan, one
# ok/not ok line per case, totals, and the check every bad-input case
# shares.  Needs $scratch (a private directory) and $UNTORN.

ktap_n=0
ktap_failed=0
ktap_skipped=0

ktap_planned=0

ktap_plan() {
	ktap_planned=$1
	echo "KTAP version 1"
	echo "1..$1"
}

ok() {	# ok STATUS DESCRIPTION: STATUS 0 passes
	ktap_n=$((ktap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $ktap_n $2"
	else
		echo "not ok $ktap_n $2"
		ktap_failed=$((ktap_failed + 1))
	fi
}

# ok_skip DESCRIPTION REASON: this case cannot run here (and says why)
ok_skip() {
	ktap_n=$((ktap_n + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_n $1 # SKIP $2"
}

# ktap_skip_rest NAME REASON: the cases not run yet are skipped (a missing
# tool, privilege or kernel feature), and exit 4 tells run-tests so
ktap_skip_rest() {
	local i
	for i in $(seq $((ktap_n + 1)) "$ktap_planned"); do echo "ok $i $1 # SKIP $2"; done
	echo "# Totals: pass:$((ktap_n - ktap_failed)) fail:$ktap_failed xfail:0 xpass:0 skip:$((ktap_planned - ktap_n)) error:0"
	exit 4
}

ktap_finish() {
	if [ $ktap_n -ne $ktap_planned ]; then
		echo "# planned $ktap_planned tests, ran $ktap_n"
		ktap_failed=$((ktap_failed + 1))
	fi
	echo "# Totals: pass:$((ktap_n - ktap_failed - ktap_skipped)) fail:$ktap_failed xfail:0 xpass:0 skip:$ktap_skipped error:0"
	[ $ktap_failed -eq 0 ]
}

# digest of every file under a directory (or "missing")
digest() {
	[ -e "$1" ] || { echo missing; return; }
	find "$1" -type f -print0 | sort -z | xargs -0 -r sha256sum | sha256sum
}

# expect_fail DESCRIPTION PATTERN DIR-TO-WATCH -- untorn args...
# passes on exit 2, one line on stderr matching PATTERN with a fix after
# ';', nothing on stdout, and DIR unchanged
expect_fail() {
	local desc=$1 pat=$2 watch=$3 before after rc lines
	shift 4
	before=$(digest "$watch")
	"$UNTORN" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	after=$(digest "$watch")
	lines=$(wc -l <"$scratch/err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$pat" "$scratch/err" &&
	   grep -q ';' "$scratch/err" && [ "$before" = "$after" ] && [ ! -s "$scratch/out" ]; then
		ok 0 "$desc"
	else
		echo "# rc=$rc lines=$lines changed=$([ "$before" = "$after" ] && echo no || echo yes)"
		sed 's/^/# stderr: /' "$scratch/err"
		ok 1 "$desc"
	fi
	echo "# $(head -c 400 "$scratch/err")"
}

# stop_midway SIGNAL PATTERN CMD...: a tool stopped midway, as a user or
# a service manager does.  CMD runs in the background in a process group
# of its own; once a process of that group matches PATTERN (pgrep -f;
# up to 120 s), SIGNAL goes to CMD's PID alone.  Sets stop_seen (1 when
# PATTERN came up), stop_rc (CMD's exit status), stop_ps (the group's
# processes before the signal, "PID ARGS" a line) and stop_left (those of
# them, or of the group, still running 10 s after CMD ended: none is the
# pass)
stop_midway() {
	local sig=${1#-} pat=$2 pid to="" i p st
	[ "$sig" = "$1" ] || to=-	# -SIGNAL: to the group
	shift 2
	stop_seen=0 stop_ps="" stop_left=""
	set -m
	"$@" &
	pid=$!
	set +m
	for i in $(seq 1200); do
		pgrep -g "$pid" -f "$pat" >/dev/null && { stop_seen=1; break; }
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1	# polling for the step to start: no event to wait on
	done
	stop_ps=$(pgrep -a -g "$pid")
	to=$to$pid
	kill -s "$sig" -- "$to" 2>/dev/null
	wait "$pid"
	stop_rc=$?
	for i in $(seq 100); do
		stop_left=""
		for p in $({ echo "$stop_ps" | awk '{ print $1 }'; pgrep -g "$pid"; } | sort -u); do
			# gone, or a zombie: ended
			read -r st 2>/dev/null </proc/"$p"/stat || continue
			st=${st##*) }
			[ "${st%% *}" = Z ] || stop_left="$stop_left $p"
		done
		[ -n "$stop_left" ] || break
		sleep 0.1	# polling processes that are not this shell's children
	done
	[ -z "$stop_left" ] || ps -o pid=,pgid=,args= -p "${stop_left# }" 2>/dev/null | sed 's/^/# left: /'
}
