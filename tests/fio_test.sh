#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fio_test.sh - the job files of fio-jobs/ and scripts/fio-compare: every
# job parses with each device include and DIR as its one variable; doublewrite.fio keeps one segment
# write per 64 page writes and the page jobs fdatasync once per 64
# writes (fio 3.33's async engines would sync after every write);
# fio-compare prints a row per job and writes its JSON, removes the files
# it made, warns when a pattern runs where it means nothing, gives the
# summary JSON alone on stdout with --output-format json (with --target,
# the directory's facts in it), and refuses bad
# input with exit 2.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-fio-test-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 8
command -v fio >/dev/null || ktap_skip_rest "fio jobs" "fio not installed (apt-get install fio)"
# fio and shell, no untorn code: nothing for a sanitizer
[ -z "${SAN_FLAGS:-}" ] || ktap_skip_rest "fio jobs" "sanitizer build ($SAN_FLAGS): the jobs run no untorn code; the plain run covers them"

# every pattern parses with each device include
bad=""
for dev in ssd hdd; do
	for job in $(cd "$top/fio-jobs" && ls ./*.fio | sed 's|^\./||; s|\.fio$||' | grep -vx 'ssd\|hdd'); do
		"$top/scripts/fio-compare" --print-job $job --device $dev > "$scratch/job.fio"
		env -i PATH="$PATH" DIR="$scratch" fio --parse-only "$scratch/job.fio" >/dev/null 2>"$scratch/err" ||
			bad="$bad $job+$dev($(head -1 "$scratch/err"))"
	done
done
vars=$(grep -ho '\${[A-Za-z_]*}' "$top"/fio-jobs/*.fio | sort -u | tr '\n' ' ')
[ "$vars" = '${DIR} ' ] || bad="$bad variables:$vars"
[ -z "$bad" ] || echo "# did not parse:$bad"
[ -z "$bad" ]
ok $? "every fio-jobs/ pattern parses with ssd.fio and with hdd.fio, DIR its one variable"

"$top/scripts/fio-compare" --dir "$scratch" --jobs doublewrite,journal,reads --runtime 2 \
	--size 64m --out "$scratch/out" > "$scratch/table" 2>"$scratch/log"
rc=$?
[ $rc -eq 0 ] || sed 's/^/# /' "$scratch/log"
counts() {	# JSON-FILE: "jobname writes fdatasyncs" per job
	python3 -c '
import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    print(j["jobname"], j["write"]["total_ios"], j["sync"]["lat_ns"].get("N", 0))' "$1"
}
counts "$scratch/out/doublewrite.json" > "$scratch/dw" 2>/dev/null
read -r _ seg _ < <(grep '^doublewrite-segment' "$scratch/dw")
read -r _ pages syncs < <(grep '^doublewrite-pages' "$scratch/dw")
echo "# segment writes ${seg:-?}, page writes ${pages:-?}, page fdatasyncs ${syncs:-?}"
[ $rc -eq 0 ] && [ "${seg:-0}" -gt 0 ] &&
	[ $((pages * 10)) -ge $((seg * 64 * 9)) ] && [ $((pages * 10)) -le $((seg * 64 * 11)) ]
ok $? "doublewrite.fio: one 1028 KiB segment write per 64 page writes (within 10 %)"

read -r _ jw js < <(counts "$scratch/out/journal.json" 2>/dev/null)
echo "# journal: ${jw:-?} page writes, ${js:-?} fdatasyncs"
[ "${syncs:-0}" -gt 0 ] && [ $((pages / syncs)) -ge 63 ] && [ $((pages / syncs)) -le 65 ] &&
	[ "${js:-0}" -gt 0 ] && [ $((jw / js)) -ge 63 ] && [ $((jw / js)) -le 65 ]
ok $? "page jobs fdatasync once per 64 writes, as the engine's cleaners do"

grep -q '^doublewrite-pages  *write ' "$scratch/table" && grep -q '^reads-seq-1m  *read ' "$scratch/table" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["jobs"]) == 6' \
		"$scratch/out/summary.json" 2>/dev/null
ok $? "fio-compare prints a row per job and writes summary.json (6 jobs from 3 files)"

# the journal pattern ran on $scratch, which is not ext4 data=journal
# (the test directory; skip if it is)
if findmnt -no OPTIONS -T "$scratch" | tail -1 | grep -q 'data=journal'; then
	ok_skip "fio-compare warns of the journal pattern off data=journal" "the test directory is on data=journal"
else
	[ "$(grep -c 'warning: journal runs on .*not ext4 data=journal' "$scratch/log")" -eq 1 ] &&
		! grep -q 'warning: \(doublewrite\|reads\)' "$scratch/log"
	ok $? "fio-compare warns, once, that the journal pattern ran off ext4 data=journal (and nothing else)"
fi

"$top/scripts/fio-compare" --target "$scratch" --jobs redo --runtime 1 --size 16m --output-format json \
	--out "$scratch/out-json" > "$scratch/json" 2>"$scratch/json.err"
rc=$?
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [j["job"] for j in d["jobs"]] == ["redo-group-commit"], d
assert d["target"]["target"] == sys.argv[3] and d["target"]["fstype"] and "logical_block_size" in d["target"], d["target"]
assert d == json.load(open(sys.argv[2]))' "$scratch/json" "$scratch/out-json/summary.json" "$scratch" 2>"$scratch/py.err" &&
	[ $rc -eq 0 ] && grep -q '^redo-group-commit ' "$scratch/json.err"
rc_all=$?
[ $rc_all -eq 0 ] || sed 's/^/# /' "$scratch/py.err" "$scratch/json.err" | tail -5
ok $rc_all "--target DIR --output-format json: stdout is summary.json alone with the target's facts, the table goes to stderr"

left=$(find "$scratch" -maxdepth 1 -name 'untorn-fio.*' | wc -l)
[ "$left" -eq 0 ]
ok $? "fio-compare removes the files its jobs made ($left left)"

bad=""
for args in "--dir $scratch --device floppy" "--dir $scratch --jobs nosuch" "--jobs redo" \
	    "--dir $scratch --output-format xml" \
	    "--dir /nonexistent/dir --jobs redo" "--bogus"; do
	# shellcheck disable=SC2086
	"$top/scripts/fio-compare" $args --out "$scratch/bad" >"$scratch/o" 2>"$scratch/e"
	rc=$?
	{ [ $rc -eq 2 ] && [ "$(wc -l <"$scratch/e")" -eq 1 ] && [ ! -e "$scratch/bad" ]; } ||
		bad="$bad [$args: rc $rc: $(head -1 "$scratch/e")]"
done
[ -z "$bad" ] || echo "# $bad"
[ -z "$bad" ]
ok $? "fio-compare: bad device, job, no --dir, missing dir, unknown option: one line, exit 2, nothing made"

ktap_finish
