# SPDX-License-Identifier: MIT
#
# powercut.sh - judging a store as a power cut left it, shared by
# crash-sim (frozen loop device) and logwrites-replay (dm-log-writes):
# `untorn check` (torn pages before recovery), `untorn recover`,
# `untorn check` (pages unrecoverable after) and `untorn verify` against
# the commits acknowledged before the cut (transactions lost).  Plain
# shell, no Python per call: in a software-emulated guest every process
# start costs.  Needs UNTORN (common.sh).

# json_top_num FILE KEY: a top-level number of one of untorn's --json
# outputs (one "key": value per line); -1 when missing
json_top_num() {
	local v
	v=$(sed -n "s/^  \"$2\": \(-\{0,1\}[0-9][0-9]*\),\{0,1\}\$/\1/p" "$1" 2>/dev/null | head -1)
	echo "${v:--1}"
}

# cut_evaluate STORE ACKS WORKDIR: sets cut_torn, cut_rec (recover's
# exit), cut_unrec, cut_acked, cut_half (transactions applied in half)
# and cut_lost (lost + stale + damaged values + cut_half); leaves before.json, recover.out, after.json, verify.json in
# WORKDIR
cut_evaluate() {
	local store=$1 acks=$2 w=$3
	"$UNTORN" check --json "$store" >"$w/before.json" 2>/dev/null
	cut_torn=$(json_top_num "$w/before.json" bad_pages)
	[ "$cut_torn" -lt 0 ] && cut_torn=0
	"$UNTORN" recover "$store" >"$w/recover.out" 2>&1
	cut_rec=$?
	"$UNTORN" check --json "$store" >"$w/after.json" 2>/dev/null
	cut_unrec=$(json_top_num "$w/after.json" bad_pages)
	[ $cut_rec -ne 0 ] && [ "$cut_unrec" -le 0 ] && cut_unrec=$cut_torn	# recovery refused
	[ "$cut_unrec" -lt 0 ] && cut_unrec=0
	cut_lost=0 cut_half=0
	cut_acked=$(wc -l <"$acks")
	[ $cut_rec -eq 0 ] || return 0
	"$UNTORN" verify --json --acks "$acks" "$store" >"$w/verify.json" 2>/dev/null
	# a transaction found applied in half (its linked rows) is lost too
	cut_half=$(json_top_num "$w/verify.json" half_transactions)
	[ "$cut_half" -lt 0 ] && cut_half=0
	cut_lost=$(( $(json_top_num "$w/verify.json" lost) + $(json_top_num "$w/verify.json" stale) +
		     $(json_top_num "$w/verify.json" damaged_values) + cut_half ))
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
