#!/bin/bash
# SPDX-License-Identifier: MIT
#
# pylib_test.sh - the Python of the scripts (scripts/lib/*.py) as units,
# on made-up inputs, no root and no disk: every module compiles, passes
# pyflakes (python3-pyflakes; missing where apt-get could install it is
# a failure, not a skip) and opens with its header (SPDX, what it is
# for, USAGE); no Python heredoc or `py -c` of more than 5 lines is left
# in scripts/, scripts/lib/*.sh or dev/; jget, the scripts' one JSON
# reader (nested keys, list indexes, stdin, several files, --default,
# one-line errors, any indentation: the power-cut figures read from
# compact JSON); and each report module's table and JSON for a small
# input: bench-matrix's run and report (matrix_report.py), the demo's
# report and verdicts, fio-compare's summary, scan-matrix's lines and
# report, the kernel matrix, a target's facts from a made-up sysfs, the
# fio calibration's figures, profile-overhead's result, the BPF
# programs' run time from a made-up /proc, atomic-cost, recovery-compare,
# flushing-compare, peer-mariadb and crash-matrix's lines.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/tmp}/untorn-pylib-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 20
lib=$top/scripts/lib
export PYTHONPATH=$lib PYTHONDONTWRITEBYTECODE=1 PYTHONPYCACHEPREFIX=$scratch/pycache
# the guards in the table's order, as bench-matrix passes them
export UNTORN_GUARD_ORDER="$("${UNTORN:-$top/build/untorn}" guards --list | tr '\n' ' ')"

# unit NAME CODE: CODE with the module NAME imported as M, say() for
# "# " lines; the output commented, the status CODE's
unit() {
	python3 -c "import sys, json, os
import $1 as M
def say(*a):
    for x in a:
        for l in str(x).splitlines() or ['']:
            print('# ' + l)
$2" "$scratch" 2>&1 | sed 's/^\([^#]\)/# \1/'
	return "${PIPESTATUS[0]}"
}

# ---- every module ---------------------------------------------------

rc=0
for f in "$lib"/*.py; do
	python3 -m py_compile "$f" 2>&1 | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "# does not compile: $f"; rc=1; }
done
ok $rc "every scripts/lib/*.py compiles (python3 -m py_compile)"

# pyflakes: the python3 on PATH may be another than Debian's, whose
# python3-pyflakes lives in /usr/bin/python3
flakes=""
for p in python3 /usr/bin/python3; do
	"$p" -m pyflakes --version >/dev/null 2>&1 && { flakes="$p -m pyflakes"; break; }
done
[ -n "$flakes" ] || flakes=$(command -v pyflakes3 || command -v pyflakes || true)
if [ -n "$flakes" ]; then
	$flakes "$lib"/*.py >"$scratch/flakes" 2>&1
	rc=$?
	sed 's/^/# /' "$scratch/flakes"
	ok $rc "every scripts/lib/*.py passes pyflakes"
elif command -v apt-get >/dev/null; then
	echo "# pyflakes not found; install it: apt-get install python3-pyflakes (dev/install-deps does)"
	ok 1 "every scripts/lib/*.py passes pyflakes"
else
	ok_skip "every scripts/lib/*.py passes pyflakes" "no pyflakes and no apt-get to install python3-pyflakes"
fi

rc=0
for f in "$lib"/*.py; do
	head -30 "$f" >"$scratch/head"
	if ! grep -q '^# SPDX-License-Identifier: MIT$' "$scratch/head" ||
	   ! grep -q "^# $(basename "$f") - " "$scratch/head" || ! grep -q '^# USAGE: ' "$scratch/head" ||
	   ! grep -q '^if __name__ == "__main__":$' "$f"; then
		echo "# no header (SPDX, '# NAME.py - what', '# USAGE:') or no __main__: $f"
		rc=1
	fi
done
ok $rc "every scripts/lib/*.py opens with SPDX, what it is for and USAGE, and runs as a program"

# the Python left inline in the shell: a heredoc fed to Python, or a
# `py -c`/`python3 -c` string, of more than 5 lines (tests/ keep theirs:
# they are assertions)
python3 - "$top" >"$scratch/inline" <<'PY'
import glob, os, re, sys
top = sys.argv[1]
files = [f for f in glob.glob(os.path.join(top, "scripts", "*")) + glob.glob(os.path.join(top, "scripts", "lib", "*.sh"))
         + glob.glob(os.path.join(top, "dev", "*")) if os.path.isfile(f) and not f.endswith((".md", ".py"))]
heredoc = re.compile(r"\b(py|python3)\b.*<<-?\s*'?([A-Za-z_]\w*)'?")
inline = re.compile(r"\b(py|python3) -c '")
for f in sorted(files):
    lines = open(f, errors="replace").read().splitlines()
    i = 0
    while i < len(lines):
        # the command, with the lines a backslash continues it on
        k = i
        while lines[k].endswith("\\") and k + 1 < len(lines):
            k += 1
        cmd = " ".join(lines[i:k + 1])
        m = heredoc.search(cmd)
        if m and "<<<" not in cmd:
            end = next((j for j in range(k + 1, len(lines)) if lines[j].strip() == m.group(2)), len(lines))
            if end - k - 1 > 5:
                print("%s:%d: a Python heredoc of %d lines" % (os.path.relpath(f, top), i + 1, end - k - 1))
            i = end + 1
            continue
        m = inline.search(lines[i])
        if m:
            # the string runs until a line ends outside single quotes
            quote, j, text = "'", i, lines[i][m.end():]
            while True:
                for c in text:
                    if quote == "'":
                        quote = "" if c == "'" else quote
                    elif quote == '"':
                        quote = "" if c == '"' else quote
                    elif c in "'\"":
                        quote = c
                if quote != "'" or j + 1 >= len(lines):
                    break
                j += 1
                text = lines[j]
            if j - i + 1 > 5:
                print("%s:%d: a py -c string of %d lines" % (os.path.relpath(f, top), i + 1, j - i + 1))
            i = j + 1
            continue
        i += 1
PY
rc=$?
sed 's/^/# /' "$scratch/inline"
[ $rc -eq 0 ] && [ ! -s "$scratch/inline" ]
ok $? "no Python heredoc or py -c string of more than 5 lines in scripts/, scripts/lib/*.sh or dev/"

# ---- jget -------------------------------------------------------------

printf '{"tps": 1234.5, "safe": true, "name": "ext4", "jobs": [{"read": {"iops": 77}}], "n": null}\n' >"$scratch/a.json"
printf '{\n    "rows": 5,\n        "bad_pages": 3\n}\n' >"$scratch/b.json"
printf 'not json' >"$scratch/c.json"
out=$(python3 "$lib/jget.py" "$scratch/a.json" tps safe name jobs.0.read.iops jobs.-1.read.iops n -- "$scratch/b.json" bad_pages)
want=$'1234.5\nTrue\next4\n77\n77\nNone\n3'
[ "$out" = "$want" ] && [ "$(echo '{"page_size": 16384}' | python3 "$lib/jget.py" - page_size)" = 16384 ]
rc=$?
echo "# $(echo $out)"
out=$(python3 "$lib/jget.py" --default -1 "$scratch/a.json" tps nope jobs.3.read -- "$scratch/c.json" x y -- "$scratch/none.json" z)
[ "$out" = $'1234.5\n-1\n-1\n-1\n-1\n-1' ] || rc=1
echo "# --default: $(echo $out)"
python3 "$lib/jget.py" "$scratch/a.json" tps nope >"$scratch/out" 2>"$scratch/err"
[ $? -eq 1 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "^jget: .*a.json: no nope$" "$scratch/err" || rc=1
sed 's/^/# /' "$scratch/err"
python3 "$lib/jget.py" "$scratch/c.json" x 2>"$scratch/err"
[ $? -eq 1 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "c.json: not JSON" "$scratch/err" || rc=1
python3 "$lib/jget.py" "$scratch/a.json" 2>/dev/null
[ $? -eq 2 ] || rc=1
ok $rc "jget: fields by path (nested, list index), any indentation, stdin, several files after --, --default for a missing field or file, one line and exit 1 for a missing field or not JSON"

# common.sh's jget, and the power-cut figures (powercut.sh) read through
# it from compact JSON, nested keys of the same name left alone
cat >"$scratch/fake-untorn" <<'EOF'
#!/bin/sh
case $1 in
check) echo '{"bad":[],"bad_pages":3,"inner":{"bad_pages":9}}' ;;
recover) exit "${FAKE_RECOVER:-0}" ;;
verify) echo '{"lost":1,"stale":0,"damaged_values":2,"half_transactions":1,"x":{"lost":50}}' ;;
esac
EOF
chmod +x "$scratch/fake-untorn"
printf '1\n2\n' >"$scratch/acks"
mkdir -p "$scratch/w"
out=$(cd "$scratch" && prog=pylib_test top=$top UNTORN=$scratch/fake-untorn bash -c '
. "$top/scripts/lib/common.sh"
. "$top/scripts/lib/powercut.sh"
echo "jget: $(jget a.json name)"
cut_evaluate store acks w
echo "torn=$cut_torn rec=$cut_rec unrec=$cut_unrec acked=$cut_acked half=$cut_half lost=$cut_lost"
FAKE_RECOVER=1 cut_evaluate store acks w
echo "torn=$cut_torn rec=$cut_rec unrec=$cut_unrec acked=$cut_acked half=$cut_half lost=$cut_lost"' 2>&1)
echo "$out" | sed 's/^/# /'
[ "$out" = "jget: ext4
torn=3 rec=0 unrec=3 acked=2 half=1 lost=4
torn=3 rec=1 unrec=3 acked=2 half=0 lost=0" ]
ok $? "common.sh's jget reads through jget.py; powercut.sh's cut_evaluate reads the top-level figures of compact JSON (torn 3, lost 1+0+2+1), none after a refused recovery"

# ---- bench-matrix -----------------------------------------------------

unit matrix_report '
d = sys.argv[1] + "/bm"
os.makedirs(d)
def run(g, tps, room=64 << 20, **kw):
    r = dict(guard=g, threads=4, tps=tps, commit_p99_us=900, device_bytes_written=2e8, fsyncs=10, block_size=16384,
             worst_over_median=0.5, seconds_below_half_median=1, seconds_below_quarter_median=0, settle_seconds=3,
             log_space_wait_ns=2e9, log_pace_ns=0, log_room_bytes=room, memory_peak_bytes=100 << 20,
             tps_series=[tps] * 3, commit="sync")
    r.update(kw)
    return r
json.dump(run("doublewrite", 1000.0), open(d + "/raw.json", "w"))
json.dump({"model": "made up"}, open(d + "/target.json", "w"))
assert M.main(["run", d + "/raw.json", d + "/target-doublewrite-t4.json", "target", "made up disk", "0", "1000",
               "ext4 data=ordered", d, str(64 << 20), "0", "0", "1"]) == 0
r = json.load(open(d + "/target-doublewrite-t4.json"))
assert r["device"] == "target" and r["rows"] == 1000 and r["fresh_load"] is True and r["redo_own_device"] is False, r
assert r["log_room_asked"] == 64 << 20 and r["target"] == {"model": "made up"} and "memory_limit_bytes" not in r, r
assert "calibration" not in r
line = M.run_line(r)
say(line)
assert line == "  target doublewrite    4 threads:     1000 tps, p99    900 us, worst second 0.50 of the median, settled after 3 s", line
for g, tps, room in (("none", 1500.0, 64 << 20), ("journal", 1250.0, 128 << 20)):
    json.dump(dict(run(g, tps, room), device="target"), open(d + "/target-%s-t4.json" % g, "w"))
by = M.by_key([json.load(open(d + "/target-%s-t4.json" % g)) for g in ("doublewrite", "none", "journal")])
lines = M.table(by, os.environ["UNTORN_GUARD_ORDER"].split())
say(*lines)
assert [l.split()[2] for l in lines[1:]] == ["doublewrite", "journal", "none"], lines
assert lines[2].split()[7:9] == ["1.25x", "0.83x"], lines[2]
assert lines[2].split()[5] == "128" and lines[3].split()[15] == "3s", lines
foot = M.footing(by)
say(*foot)
assert foot == ["target, 4 threads: not on equal footing: log room 64-128 MiB across the guards"
                " (doublewrite 64, none 64, journal 128)"], foot
p = d + "/profile-target-none-t4"
os.makedirs(p)
open(p + "/untorn-latch.txt", "w").write("@wait_ms_total[log_flush]: 50\n@wait_ms_total[page]: 80\n")
open(p + "/jbd2-commit.txt", "w").write("@commits[7, 0]: 3\n@commits[8, 1]: 9\n")
open(p + "/device", "w").write("7:0\n")
prof = M.profiled(d, by, os.environ["UNTORN_GUARD_ORDER"].split())
assert len(prof) == 1 and prof[0]["latch_top"] == "page" and prof[0]["jbd2_commits"] == 3 and prof[0]["slot_waits"] == 0, prof
os.remove(d + "/raw.json")
assert M.report(d, os.environ["UNTORN_GUARD_ORDER"].split()) == 0
m = json.load(open(d + "/matrix.json"))
assert sorted(x["guard"] for x in m) == ["doublewrite", "journal", "none"], m
assert json.load(open(d + "/profile.json"))[0]["page_latch_wait_ms"] == 80
os.makedirs(d + "/empty")
assert M.report(d + "/empty", []) == 1
' >"$scratch/out" 2>&1
rc=$?
cat "$scratch/out"
grep -q "no runs in .*empty (every guard refused?)" "$scratch/out" || rc=1
ok $rc "matrix_report: a run annotated (device, rows, fresh load, target facts) and told in its line; the table in the guards' order with ratios to doublewrite and none; 'not on equal footing' where the log room differs; the profile; matrix.json; no runs: one line, exit 1"

# ---- demo -------------------------------------------------------------

unit demo_report '
res = sys.argv[1] + "/demo"
os.makedirs(res)
for g, tps in (("doublewrite", 1000.0), ("none", 1250.0)):
    json.dump(dict(device="plain", guard=g, filesystem="ext4 (plain dir)", tps=tps, commit_p99_us=700,
                   device_bytes_written=3e6, fsyncs=9), open(res + "/plain-write-%s.json" % g, "w"))
for p, mb in (("none", 20.0), ("linear", 40.0), ("logical", 80.0)):
    s = dict(device="plain", layout="sequential", policy=p, mb_per_s=mb, tree=dict(fragmentation=0.5))
    if p == "logical":
        s["fraction_of_bound"] = 0.9
    json.dump(s, open(res + "/plain-scan-sequential-%s.json" % p, "w"))
open(res + "/skipped.txt", "w").write("the bound on plain: fio missing\n")
w = M.write_table([json.load(open(res + "/plain-write-%s.json" % g)) for g in ("doublewrite", "none")],
                  ["doublewrite", "none"], ["plain"], "1", "plain")
say(*w)
assert w[2] == "plain  doublewrite  ext4 (plain dir)            1000    1.00x    0.80x        700       3.0       9", w[2]
assert w[3].split()[6:8] == ["1.25x", "1.00x"], w[3]
assert M.report(res, "plain", 7, "", "1", ["doublewrite", "none"]) == 0
d = json.load(open(res + "/demo.json"))
assert d["mode"] == "plain" and d["failed"] is None and d["skipped"] == ["the bound on plain: fio missing"], d
assert len(d["writes"]) == 2 and len(d["scans"]) == 3 and d["hdd_calibration"] is None, d
s = M.scan_table(d["scans"], ["plain"])
assert s[3] == "plain  sequential    50%     20.0     40.0     80.0     2.0x     4.0x      0.90", s[3]
def v(mp, safe, **kw):
    return dict(mount_point=mp, fstype="ext4", source="/dev/sda1", innodb_doublewrite_off=dict(safe=safe, reason="in place"),
                untorn_doublewrite=dict(safe=True), untorn_journal=dict(safe=safe), untorn_sector=dict(safe=False), **kw)
own = M.json_stream(json.dumps(v("/", False), indent=1) + "\n" + json.dumps(v("/srv", True)))
assert [o["mount_point"] for o in own] == ["/", "/srv"]
lines = M.verdicts(own, [v("/m", True, device="ssd", filesystem="ext4 data=journal")])
say(*lines)
assert lines[2] == "  / (ext4 on /dev/sda1): InnoDB UNSAFE; untorn journal guard unsafe, sector guard unsafe: in place", lines
assert lines[4] == "this machine: innodb_doublewrite=OFF is safe on /srv (1 of its 2 mounts); keep the doublewrite on the others;" \
                   " untorn --guard journal on /srv; untorn --guard sector on none", lines[4]
assert lines[-1] == "measured above: innodb_doublewrite=OFF is safe on ssd ext4 data=journal; untorn --guard journal on" \
                    " ssd ext4 data=journal; untorn --guard sector on none", lines[-1]
assert M.verdicts([], [])[1].startswith("this machine: no ext4, XFS or btrfs mount of a disk to judge")
'
ok $? "demo_report: bench write's table with ratios, the scans' table, demo.json with what was skipped; the verdicts of this machine's mounts (concatenated JSON) and of what was measured, with the closing lines"

# ---- fio-compare, scan-matrix, the kernel matrix ------------------------

unit fio_compare '
d = sys.argv[1] + "/fio"
os.makedirs(d)
rd = dict(total_ios=100, iops=2500.4, bw_bytes=41e6, clat_ns=dict(percentile={"50.000000": 120000, "99.000000": 950000}))
none = dict(total_ios=0, iops=0, bw_bytes=0)
jobs = [dict(jobname="page-write", write=rd, read=none, sync=dict(lat_ns=dict(percentile={"99.000000": 2000000}))),
        dict(jobname="scan-read", write=none, read=rd)]
json.dump(dict(jobs=jobs), open(d + "/untorn.json", "w"))
open(d + "/untorn.mount", "w").write("/dev/loop1 ext4 rw\n")
open(d + "/broken.json", "w").write("{")
open(d + "/broken.mount", "w").write("x\n")
rows = M.load(d, ["untorn", "broken", "absent"])
assert [(r["job"], r["rw"], r["clat_p99_us"], r["fdatasync_p99_us"]) for r in rows] == [
    ("page-write", "write", 950.0, 2000.0), ("scan-read", "read", 950.0, None)], rows
t = M.table(rows, ["untorn", "broken"], "hdd", d)
say(*t)
assert t[2] == "page-write             write      2500     41.0       120       950         -         -      2000", t[2]
assert t[-1] == "  untorn ran on /dev/loop1 ext4 rw", t
assert M.main([d, "hdd", "untorn", "broken"]) == 0
s = json.load(open(d + "/summary.json"))
assert s["device_profile"] == "hdd" and len(s["jobs"]) == 2 and "target" not in s, s
'
ok $? "fio_compare: a row per job (read or write, clat and fdatasync percentiles in us, '-' where fio gave none), a failed job file left out, summary.json"

unit scan_report '
d = sys.argv[1] + "/scan"
os.makedirs(d)
def scan(mb, secs, threads=0, **kw):
    r = dict(mb_per_s=mb, seconds=secs, ios=300, writers=dict(threads=threads, tps=900.0, tps_over_alone=0.75, alone_tps=1200.0,
             p99_us=-1, alone_p99_us=4100, baseline_seconds=10), tree=dict(fragmentation=0.4, leaves=999), window_pages=128,
             bound=dict(seconds=1.5), lra_sleep_ms=0, **kw)
    r["yield"] = dict(spare_pct=20)
    return r
for p, mb, secs in (("none", 50.0, 3.0), ("linear", 90.0, 2.0), ("logical", 130.0, 1.5)):
    json.dump(scan(mb, secs, fraction_of_bound=1.5 / secs), open(d + "/ssd-random-scan-%s.json" % p, "w"))
json.dump(dict(jobs=[dict(read=dict(bw_bytes=260e6))]), open(d + "/ssd-random-fio-seq.json", "w"))
json.dump(dict(rows=5, seconds=0.75), open(d + "/ssd-random-dump.json", "w"))
for m, secs in (("sync", 4.0), ("batched", 1.0)):
    json.dump(dict(seconds=secs, pages_read=1234, read_submits=55), open(d + "/ssd-recover-%s.json" % m, "w"))
l = M.scan_line(scan(77.0, 2.0, threads=4), "logical-load", 1.5)
say(l)
assert l == "  scan logical-load           77.0 MB/s    2.00 s,    300 reads, 0.75 of the bound, writers 900 TPS (0.75 of 1200 alone)", l
assert M.scan_line(scan(50.0, 3.0), "none", 1.5).endswith("0.50 of the bound")
assert M.ms(-1) == "-" and M.ms(5300) == "5.3"
s = M.report(d, "ssd", "random,split", "scripts/scan-matrix", "abc123")
r = s["runs"][0]
assert (r["layout"], r["logical_over_linear"], r["logical_of_fio_seq"], r["dump_over_scan"]) == ("random", 130 / 90, 0.5, 2.0), r
assert r["fraction_of_bound"] == {"none": 0.5, "linear": 0.75, "logical": 1.0} and "under_load" not in r, r
assert s["runs"][1]["recovery"]["sync_over_batched"] == 4.0 and s["commit"] == "abc123", s
' >"$scratch/out" 2>&1
rc=$?
cat "$scratch/out"
grep -q "^# random        40%     50.0     90.0    130.0      1.4x      2.6x      1.00      0.50    260.0      2.00$" "$scratch/out" &&
	grep -q "^# recovery after the same crash: sync 4.00 s, batched 1.00 s (1234 pages): 4.0x$" "$scratch/out" || rc=1
ok $rc "scan_report: a scan's line (its share of the bound, the writers against alone), a layout's row (log/lin, of fio 1M, dump/scan), recovery sync over batched, the summary"

mkdir -p "$scratch/km"
cat >"$scratch/km/6.1.suite.ktap" <<'EOF'
KTAP version 1
1..3
ok 1 selftests: untorn: cli_test.sh
# the store in /tmp/untorn-x-123/s: page torn
# FAIL: recover did not repair it
not ok 2 selftests: untorn: crash_test: 3 trials
ok 3 selftests: untorn: fio_test.sh # SKIP fio missing in /tmp/untorn-x-123
EOF
sed 's/^not ok 2/ok 2/' "$scratch/km/6.1.suite.ktap" >"$scratch/km/host-6.12.suite.ktap"
echo "no image" >"$scratch/km/7.3.why"
touch "$scratch/km/7.3.features.ktap"
unit kernel_matrix_report '
d = sys.argv[1] + "/km"
assert M.main([d]) == 1
m = json.load(open(d + "/matrix.json"))
assert m["columns"] == ["host-6.12", "6.1", "7.3"], m["columns"]
assert m["rows"] == ["suite: cli_test.sh", "suite: crash_test", "suite: fio_test.sh", "(no result)"], m["rows"]
assert m["cells"]["suite: crash_test"] == {"host-6.12": "ok", "6.1": "FAIL", "7.3": "-"}, m["cells"]
assert m["cells"]["suite: fio_test.sh"]["6.1"] == "skip (fio missing)", m["cells"]
assert m["cells"]["(no result)"]["7.3"] == "skip (no image)", m["cells"]
assert open(d + "/matrix.md").read().splitlines()[0] == "| feature / test | host-6.12 | 6.1 | 7.3 |"
' >"$scratch/out" 2>&1
rc=$?
cat "$scratch/out"
grep -q "^# FAIL 6.1 suite: selftests: untorn: crash_test: 3 trials$" "$scratch/out" &&
	grep -q "^#     # FAIL: recover did not repair it$" "$scratch/out" || rc=1
ok $rc "kernel_matrix_report: host column first, a row per case by part, FAIL/skip (why, scratch paths out)/no result (why), matrix.md and matrix.json, what a failed case printed, exit 1"

# ---- a target, fio's calibration, tracing's cost ------------------------

mkdir -p "$scratch/sys/block/sdz/sdz2" "$scratch/sys/block/sdz/queue" "$scratch/sys/block/sdz/device" \
	"$scratch/sys/class/block" "$scratch/sys/block/loop7/queue" "$scratch/sys/block/loop7/loop"
ln -s ../../block/sdz/sdz2 "$scratch/sys/class/block/sdz2"
ln -s ../../block/loop7 "$scratch/sys/class/block/loop7"
touch "$scratch/sys/block/sdz/sdz2/partition"
for kv in rotational:1 logical_block_size:512 physical_block_size:4096 nr_requests:64 "write_cache:write back" \
	atomic_write_unit_min_bytes:4096 atomic_write_unit_max_bytes:65536; do
	echo "${kv#*:}" >"$scratch/sys/block/sdz/queue/${kv%%:*}"
done
echo "ATA     " >"$scratch/sys/block/sdz/device/vendor"
echo "Made Up Disk" >"$scratch/sys/block/sdz/device/model"
echo 0 >"$scratch/sys/block/loop7/queue/rotational"
echo /var/tmp/disk.img >"$scratch/sys/block/loop7/loop/backing_file"
unit target_facts '
sysfs = sys.argv[1] + "/sys"
f = M.disk_facts("/dev/sdz2", sysfs)
say(json.dumps(f))
assert f["device"] == "/dev/sdz2" and f["disk"] == "sdz" and f["model"] == "ATA Made Up Disk", f
assert (f["rotational"], f["queue_depth"], f["write_cache"], f["atomic_write_unit_max_bytes"]) == (1, 64, "write back", 65536), f
assert "atomic_write_max_bytes" not in f
f = dict(target="/dev/sdz2", kind="device", **f)
l = M.line(f)
say(l)
assert l == "/dev/sdz2: /dev/sdz2 (ATA Made Up Disk), rotational, 512/4096-byte blocks, queue 64, cache write back, atomic writes 4096-65536 bytes", l
g = M.disk_facts("/dev/loop7", sysfs)
assert g["model"] == "loop device on /var/tmp/disk.img" and g["rotational"] == 0 and g["disk"] == "loop7", g
assert M.disk_facts("", sysfs)["device"] == "" and M.disk_facts("", sysfs)["model"] == "unknown"
fs = M.parse_fscheck(json.dumps(dict(fstype="ext4", mount_point="/srv", mount_options="rw,noatime", data_mode="journal",
                                      block_size=4096, other=1)))
assert M.fs_facts(fs) == dict(fstype="ext4", mount_point="/srv", mount_options="rw,noatime", fs_data_mode="journal",
                              fs_block_size=4096), M.fs_facts(fs)
assert M.parse_fscheck("") == {} and M.parse_fscheck("untorn-fscheck: no") == {}
assert M.jbd2_size("Journal features:  x\nTotal journal size:       1024M\n") == "1024M"
h = dict(g, target="/srv", kind="directory", fstype="ext4", mount_options="rw", jbd2_journal_size="64M")
assert M.line(h).endswith(", atomic writes none; ext4 rw, journal 64M"), M.line(h)
'
ok $? "target_facts: a partition's whole disk, its queue facts and model from a made-up sysfs, a loop device's backing file, untorn-fscheck's keys renamed, the jbd2 journal from dumpe2fs, the one line for a device and a directory"

unit fio_calibration '
def fio(rd, wr, sync=None):
    j = {"read": rd, "write": wr}
    if sync:
        j["sync"] = {"lat_ns": {"mean": sync}}
    return {"jobs": [j]}
none = {"io_bytes": 0, "iops": 0, "bw_bytes": 0, "clat_ns": {"mean": 0}}
r = M.figures(fio({"io_bytes": 1, "iops": 150.4, "bw_bytes": 2.46e6, "clat_ns": {"mean": 6.5e6}}, none))
assert "%.0f %.1f %.2f" % r == "150 2.5 6.50", r
w = M.figures(fio(none, {"io_bytes": 1, "iops": 90, "bw_bytes": 1.5e6, "clat_ns": {"mean": 1e5}}, sync=4.25e6))
assert "%.0f %.1f %.2f" % w == "90 1.5 4.25", w
c = M.calibration("/dev/x", ["150 2.5 6.50", "900 14.7 1.10", "120 2.0 8.3", "9 190.5 5.2", "2000 8.2 0.5", "80 1.3 12.25"])
assert c == {"device": "/dev/x", "randread_16k_iops": 150, "randread_16k_qd32_iops": 900, "randwrite_16k_iops": 120,
             "seqread_1m_mb_s": 190.5, "seqwrite_4k_iops": 2000, "seqwrite_4k_mb_s": 8.2, "fdatasync_ms": 12.25}, c
'
rc=$?
echo '{"jobs": []}' | python3 "$lib/fio_calibration.py" figures >/dev/null 2>&1
[ $? -eq 1 ] || rc=1
ok $rc "fio_calibration: a run's IOPS, MB/s and latency (fdatasync's where the job synced), exit 1 on output that is not a job's; the calibration's JSON from six results"

unit profile_overhead '
out = sys.argv[1] + "/po.json"
json.dump({"device": "/dev/x"}, open(sys.argv[1] + "/po-target.json", "w"))
assert M.main(["all", "4", "5", out, "1000 1100 900", "960 990 980", "500 600 0", "1000000 1200000 0",
               "100 100 100", sys.argv[1] + "/po-target.json"]) == 0
r = json.load(open(out))
assert (r["median_without"], r["median_with"], r["ratio"], r["rounds"]) == (1000.0, 980.0, 0.98, 3), r
assert (r["bpf_us_per_transaction"], r["bpf_ns_per_run"], r["bpf_runs_per_transaction"]) == (10.0, 2000, 5.0), r
assert r["target"] == {"device": "/dev/x"} and r["cpus"] == os.cpu_count(), r
f = M.figures([1000.0], [500.0], [0], [0], [10], 2)
assert f["per_run"] == 0 and M.table(M.result("x", 1, 1, [1000.0], [500.0], [0], [0], [10], 2, f), f)[2].endswith("(target >= 0.95: NOT met)")
' >"$scratch/out" 2>&1
rc=$?
cat "$scratch/out"
grep -q "^# with scripts: all                     980            3     0.98   (target >= 0.95: met)$" "$scratch/out" || rc=1
ok $rc "profile_overhead: medians with and without tracing, their ratio against 0.95, the BPF programs' time a transaction and a run, the target's facts in the JSON"

mkdir -p "$scratch/proc/10/fdinfo" "$scratch/proc/11/fdinfo" "$scratch/proc/12/fdinfo"
echo bpftrace >"$scratch/proc/10/comm"
echo bpftrace >"$scratch/proc/11/comm"
echo bash >"$scratch/proc/12/comm"
printf 'pos:\t0\nprog_id:\t7\nrun_time_ns:\t5000\nrun_cnt:\t10\n' >"$scratch/proc/10/fdinfo/3"
printf 'pos:\t0\nmap_id:\t2\n' >"$scratch/proc/10/fdinfo/4"
printf 'prog_id:\t7\nrun_time_ns:\t5000\nrun_cnt:\t10\n' >"$scratch/proc/11/fdinfo/5"
printf 'prog_id:\t8\nrun_time_ns:\t300\nrun_cnt:\t2\n' >"$scratch/proc/11/fdinfo/6"
printf 'prog_id:\t9\nrun_time_ns:\t999\nrun_cnt:\t9\n' >"$scratch/proc/12/fdinfo/3"
out=$(python3 "$lib/bpf_runtime.py" "$scratch/proc")
echo "# $out"
[ "$out" = "12 5300" ]
ok $? "bpf_runtime: the runs and nanoseconds of the programs bpftrace processes hold, each prog_id once, other processes' left out"

# ---- dev/'s comparisons, peer-mariadb, crash-matrix ----------------------

unit atomic_cost '
d = sys.argv[1]
for rnd, (p, a) in enumerate(((1000.0, 800.0), (1100.0, 770.0), (900.0, 810.0)), 1):
    for iops, atomic in ((p, False), (a, True)):
        json.dump(dict(qd=8, atomic=atomic, iops=iops, p99_us=iops / 10, atomic_unit_min=4096, atomic_unit_max=65536),
                  open(d + "/run.json", "w"))
        assert M.add(d + "/run.json", rnd, d + "/runs.jsonl") == "%.0f writes/s" % iops
rows = M.rows_of([json.loads(l) for l in open(d + "/runs.jsonl")])
assert len(rows) == 1 and rows[0]["plain_iops"] == 1000.0 and rows[0]["atomic_iops"] == 800.0, rows
assert (rows[0]["atomic_over_plain"], rows[0]["min"], rows[0]["max"]) == (0.8, 0.7, 0.9), rows
t = M.table(rows)
say(*t)
assert t[1] == "   8         1000          800      100us       80us  0.80 [0.70-0.90]", t
assert M.report(d + "/runs.jsonl", d + "/ac.json", "here") == 0
assert json.load(open(d + "/ac.json"))["units"] == [4096, 65536]
'
ok $? "atomic_cost: runs appended with their round, atomic over plain taken within a round (median [min-max]), the table and JSON"

unit recovery_report '
d = sys.argv[1]
for g, secs in (("doublewrite", (2.0, 3.0, 4.0)), ("journal", (1.0, 1.5, 2.5))):
    for t, s in enumerate(secs, 1):
        json.dump(dict(seconds=s, redo_bytes=4e6, records_applied=10, pages_read=20), open(d + "/r.json", "w"))
        l = M.trial(d + "/r.json", g, t, d + "/trials.jsonl")
assert l == "trial 3 journal      recover 2.500 s, redo 4.0 MB from the checkpoint, 10 records applied, 20 pages read", l
t = M.table([json.loads(l) for l in open(d + "/trials.jsonl")], ["doublewrite", "journal"], "ssd: loop")
say(*t)
assert t[0] == "\nssd: loop\nguard           recover s /doublewrite      redo MB   pages read", t[0]
assert t[2] == "journal             1.500      0.50x          4.0           20", t[2]
'
ok $? "recovery_report: a trial appended and told, medians per guard and over the first guard's"

unit flushing_report '
d = sys.argv[1] + "/fl"
os.makedirs(d)
for v, tps in (("adaptive", (100.0, 300.0, 200.0)), ("eager", (100.0, 100.0, 150.0))):
    for i, t in enumerate(tps, 1):
        json.dump(dict(tps=t, worst_over_median=0.5, tps_median_second=t, seconds_below_half_median=2, pages_written=99,
                       checkpoint_age_max=50, log_capacity=200, log_space_wait_ns=2.5e9), open(d + "/dw-flushing-%s-%d.json" % (v, i), "w"))
l = M.run_line(json.load(open(d + "/dw-flushing-eager-3.json")), "flushing", "eager")
say(l)
assert l == "flushing eager     tps     150 (median second    150)  worst/median 0.50  below half   2  pages     99  age peak  25% mean   0%  log-space wait   2.5 s  paced   0.0 s", l
assert M.medians(d, "dw-flushing", ("adaptive", "eager")) == {"adaptive": (200.0, 0.5), "eager": (100.0, 0.5)}
assert M.main(["medians", d, "dw-flushing", "adaptive", "eager"]) == 0
' >"$scratch/out" 2>&1
rc=$?
cat "$scratch/out"
grep -q "^# adaptive / eager: 2.00x TPS$" "$scratch/out" || rc=1
ok $rc "flushing_report: a run's line (age as a share of the log), each value's medians and the first over the second"

for s in 1 2 3 4 5; do echo "[ ${s}s ] thds: 8 tps: $((s * 100)).00 qps: 1 (r/w/o: 1/1/1) lat (ms,99%): 2.0"; done >"$scratch/sysbench.log"
unit peer_report '
d = sys.argv[1]
s = M.series_of(open(d + "/sysbench.log"), 2)
assert s == [300.0, 400.0, 500.0], s
r = M.run_result(s, 2, "ssd", "dw", 8, 3, None)
assert (r["tps"], r["tps_median_second"], r["worst_over_median"], r["seconds_below_half_median"]) == (400.0, 400.0, 0.75, 0), r
os.makedirs(d + "/peer")
json.dump(r, open(d + "/peer/mariadb-ssd-dw.json", "w"))
json.dump(dict(r, config="none", tps=500.0), open(d + "/peer/mariadb-ssd-none.json", "w"))
os.makedirs(d + "/um")
json.dump({"tps": 1000.0}, open(d + "/um/ssd-doublewrite-t8.json", "w"))
json.dump({"tps": 1300.0}, open(d + "/um/ssd-none-t8.json", "w"))
assert M.report(d + "/peer", d + "/um", "8", "ssd", "dw,none") == 0
p = json.load(open(d + "/peer/peer.json"))
assert [(x["ratio_to_dw"], x["untorn_ratio_to_doublewrite"]) for x in p] == [(1.0, 1.0), (1.25, 1.3)], p
' >"$scratch/out" 2>&1
rc=$?
cat "$scratch/out"
grep -q "^# ssd    none                500   1.25x      0.75        1.30x$" "$scratch/out" || rc=1
: >"$scratch/empty.log"
python3 "$lib/peer_report.py" run "$scratch/empty.log" 2 ssd dw 8 3 "$scratch/none.json" 2>"$scratch/err" >/dev/null
[ $? -eq 1 ] && grep -q "no per-second figures" "$scratch/err" || rc=1
ok $rc "peer_report: the seconds after the warm-up, a run's figures, MariaDB's ratio to dw beside untorn's; no figures: one line, exit 1"

summary='{"summary": true, "guard": "sector", "trials": 20, "torn_before": 3, "unrecoverable_after": 0, "lost": 0, "half_transactions": 0, "acknowledged": 900, "checked": 800, "undetected": 0, "seconds": 61}'
l1=$(echo "$summary" | python3 "$lib/crash_summary.py" line)
r1=$(echo "$summary" | python3 "$lib/crash_summary.py" row sector xfs mid-page -- ok)
l2=$(echo "" | python3 "$lib/crash_summary.py" line)
r2=$(echo "" | python3 "$lib/crash_summary.py" row sector xfs mid-page -- FAILED)
printf '# %s\n' "$l1" "$r1" "$r2"
[ "$l1" = "torn 3, unrecoverable 0, lost 0 of 800 acked commits checked (half transactions 0), unreported 0, 61 s" ] &&
	[ "$r1" = "| sector | xfs | mid-page | -- | 20 | 3 | 0 | 800 | 0 | 0 | 0 | 61 | ok |" ] &&
	[ -z "$l2" ] && [ "$r2" = "| sector | xfs | mid-page | -- | | | | | | | | | FAILED |" ]
ok $? "crash_summary: crash-sim's summary as the matrix's line and results row; no summary: an empty line, a row with blank figures"

ktap_finish
