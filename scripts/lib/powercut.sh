# SPDX-License-Identifier: MIT
#
# powercut.sh - judging a store as a power cut left it, shared by
# crash-sim (frozen loop device) and logwrites-replay (dm-log-writes):
# `untorn check` (torn pages before recovery), `untorn recover`,
# `untorn check` (pages unrecoverable after) and `untorn verify` against
# the commits acknowledged before the cut (transactions lost).  One
# Python start per cut (jget, every figure of the three outputs at once):
# in a software-emulated guest every process start costs.  Needs UNTORN
# and jget (common.sh).

# cut_evaluate STORE ACKS WORKDIR: sets cut_torn, cut_rec (recover's
# exit), cut_unrec, cut_acked, cut_half (transactions applied in half)
# and cut_lost (lost + stale + damaged values + cut_half); leaves before.json, recover.out, after.json, verify.json in
# WORKDIR
cut_evaluate() {
	local store=$1 acks=$2 w=$3 half lost stale damaged
	"$UNTORN" check --json "$store" >"$w/before.json" 2>/dev/null
	"$UNTORN" recover "$store" >"$w/recover.out" 2>&1
	cut_rec=$?
	"$UNTORN" check --json "$store" >"$w/after.json" 2>/dev/null
	cut_acked=$(wc -l <"$acks")
	[ $cut_rec -ne 0 ] ||
		"$UNTORN" verify --json --acks "$acks" "$store" >"$w/verify.json" 2>/dev/null
	# the figures, -1 where an output lacks one (verify's are read only
	# when it ran: after a refused recovery its file is an older cut's)
	{ read -r cut_torn; read -r cut_unrec; read -r half; read -r lost; read -r stale; read -r damaged; } < <(
		jget --default -1 "$w/before.json" bad_pages -- "$w/after.json" bad_pages -- \
			"$w/verify.json" half_transactions lost stale damaged_values 2>/dev/null)
	cut_torn=${cut_torn:--1} cut_unrec=${cut_unrec:--1}
	[ "$cut_torn" -lt 0 ] && cut_torn=0
	[ $cut_rec -ne 0 ] && [ "$cut_unrec" -le 0 ] && cut_unrec=$cut_torn	# recovery refused
	[ "$cut_unrec" -lt 0 ] && cut_unrec=0
	cut_lost=0 cut_half=0
	[ $cut_rec -eq 0 ] || return 0
	# a transaction found applied in half (its linked rows) is lost too
	cut_half=${half:--1}
	[ "$cut_half" -lt 0 ] && cut_half=0
	cut_lost=$(( ${lost:--1} + ${stale:--1} + ${damaged:--1} + cut_half ))
	[ "$cut_lost" -lt 0 ] && cut_lost=0
	return 0
}

# cut_unreported: 0 when the last cut_evaluate found damage (recovery
# failed, or commits were lost) that check had not reported before it
cut_unreported() {
	{ [ $cut_rec -ne 0 ] || [ "$cut_lost" -gt 0 ]; } && [ "$cut_torn" -eq 0 ]
}

# cut_judge EXPECT: 0 when the last cut_evaluate went as EXPECT (safe:
# nothing unrecoverable, nothing lost; detect: damage, if any, was
# reported by check before recovery)
cut_judge() {
	if [ "$1" = safe ]; then
		[ "$cut_unrec" -eq 0 ] && [ "$cut_lost" -eq 0 ]
	else
		! cut_unreported
	fi
}
