#!/bin/bash
# SPDX-License-Identifier: MIT
#
# peer_mariadb_test.sh - scripts/peer-mariadb at its smallest size: Debian's
# MariaDB under sysbench oltp_write_only on the ssd loop device, with the
# doublewrite on (ext4 data=ordered) and off (ext4 data=journal): a run
# per configuration with every measured second's TPS, the ratio to the
# doublewrite run, untorn's ratio beside it read from a bench-matrix
# directory, and nothing left behind (server, mount, loop device); with
# --target DIR, dw and none in a directory of its own there, journal not
# run off data=journal, the directory as it was.
# Where MariaDB or sysbench is missing the test fails naming the package
# (make check installs both); without root it skips.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${UNTORN_TEST_DIR:-/var/tmp}/untorn-peer-test-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 4
[ "$(id -u)" -eq 0 ] || ktap_skip_rest "peer-mariadb" "not root (loop devices, mounts)"
# it runs MariaDB and shell, no untorn code: nothing for a sanitizer
[ -z "${SAN_FLAGS:-}" ] || ktap_skip_rest "peer-mariadb" "sanitizer build ($SAN_FLAGS): the script runs no untorn code; the plain run covers it"
missing=""
for t in mariadbd:mariadb-server sysbench:sysbench; do
	command -v "${t%%:*}" >/dev/null || missing="$missing ${t#*:}"
done
if [ -n "$missing" ]; then
	for i in 1 2 3; do ok 1 "peer-mariadb: missing; apt-get install$missing (make check does)"; done
	ktap_finish
fi

# untorn's side, as bench-matrix writes it (threads 2, device ssd)
mkdir -p "$scratch/untorn"
echo '{"tps": 1000.0}' > "$scratch/untorn/ssd-doublewrite-t2.json"
echo '{"tps": 1250.0}' > "$scratch/untorn/ssd-journal-t2.json"

# what a run made is named for its pid (untorn-peer-mariadb-PID-*: the
# work directory with the image, the mount point and the datadir, or the
# datadir inside --target): the checks at the end look only for that,
# never at the machine's counts, which other work changes
runs=()
peer() {
	"$top/scripts/peer-mariadb" "$@" &
	local pid=$!
	runs+=("$pid")
	wait "$pid"
}
peer --devices ssd --configs dw,journal --tables 1 --table-size 1000 \
	--threads 2 --seconds 3 --warmup 1 --buffer-pool 64M --log-file-size 16M \
	--untorn "$scratch/untorn" --out "$scratch/out" > "$scratch/log" 2>&1
rc=$?
sed 's/^/# /' "$scratch/log"
python3 - "$scratch/out" <<'EOF'
import json, os, sys
out = sys.argv[1]
rows = {r["config"]: r for r in json.load(open(os.path.join(out, "peer.json")))}
ok = set(rows) == {"dw", "journal"}
for c, r in rows.items():
	one = json.load(open(os.path.join(out, f"mariadb-ssd-{c}.json")))
	ok &= one["tps"] > 0 and 2 <= len(one["tps_series"]) <= 4 and one["engine"] == "mariadb"
	ok &= abs(r["tps"] - one["tps"]) < 1e-6
ok &= abs(rows["dw"]["ratio_to_dw"] - 1) < 1e-9
ok &= abs(rows["journal"]["ratio_to_dw"] - rows["journal"]["tps"] / rows["dw"]["tps"]) < 1e-9
sys.exit(0 if ok else 1)
EOF
checked=$?
[ $rc -eq 0 ] && [ $checked -eq 0 ]
ok $? "a run per configuration (doublewrite on/data=ordered, off/data=journal): TPS every second, ratio to the doublewrite run"

python3 -c '
import json, sys
rows = {r["config"]: r for r in json.load(open(sys.argv[1]))}
sys.exit(not (abs(rows["journal"]["untorn_ratio_to_doublewrite"] - 1.25) < 1e-9 and
	      abs(rows["dw"]["untorn_ratio_to_doublewrite"] - 1.0) < 1e-9))' "$scratch/out/peer.json" 2>/dev/null &&
	grep -q "1.25x" "$scratch/log"
ok $? "untorn's ratio for the same device and threads beside MariaDB's, in the table and peer.json"

# --target DIR: the datadir in a directory of its own there; journal
# only on ext4 data=journal (the test directory is not: one line says so)
mkdir -p "$scratch/tgt/mine" && echo "the user's" >"$scratch/tgt/mine/file"
state=$(cd "$scratch/tgt" && find . -printf '%p %s %m\n' | sort)
peer --target "$scratch/tgt" --configs dw,journal,none --tables 1 --table-size 1000 \
	--threads 2 --seconds 2 --warmup 1 --buffer-pool 64M --log-file-size 16M \
	--out "$scratch/out-t" > "$scratch/log-t" 2>&1
rc=$?
sed 's/^/# /' "$scratch/log-t" | tail -6
python3 - "$scratch/out-t" "$scratch/tgt" <<'EOF'
import json, os, sys
out, tgt = sys.argv[1:3]
rows = {r["config"]: r for r in json.load(open(os.path.join(out, "peer.json")))}
assert set(rows) == {"dw", "none"}, set(rows)
for c in rows:
	one = json.load(open(os.path.join(out, f"mariadb-target-{c}.json")))
	assert one["tps"] > 0 and one["target"]["target"] == tgt, one.get("target")
EOF
checked=$?
if findmnt -no OPTIONS -T "$scratch" | grep -q data=journal; then
	ok_skip "peer-mariadb --target DIR" "the test directory is on data=journal"
else
	"$top/scripts/peer-mariadb" --target "$scratch/tgt" --dry-run --out "$scratch/out-dry" >"$scratch/dry" 2>&1
	dry=$?
	[ $rc -eq 0 ] && [ $checked -eq 0 ] && grep -q "journal not run on $scratch/tgt: its filesystem is not ext4 data=journal" "$scratch/log-t" &&
		[ $dry -eq 0 ] && grep -q "nothing is changed" "$scratch/dry" && grep -q "journal: not run" "$scratch/dry" &&
		[ ! -e "$scratch/out-dry" ] &&
		[ "$state" = "$(cd "$scratch/tgt" && find . -printf '%p %s %m\n' | sort)" ]
	ok $? "--target DIR: dw and none measured there with its facts, journal not run (one line why; --dry-run says the same and makes nothing), the directory as it was"
fi

left=""
for pid in "${runs[@]}"; do
	made="untorn-peer-mariadb-$pid-"
	! pgrep -f -- "--datadir=[^ ]*$made" >/dev/null || left="$left mariadbd($pid)"
	! losetup -nO BACK-FILE 2>/dev/null | grep -qF "$made" || left="$left loop($pid)"
	! grep -qF "$made" /proc/mounts || left="$left mount($pid)"
	! ls -d "/var/tmp/$made"* "$scratch/tgt/$made"* >/dev/null 2>&1 || left="$left workdir($pid)"
done
[ -z "$left" ] || echo "# left behind:$left"
[ -z "$left" ]
ok $? "no server, mount, loop device or work directory left"

ktap_finish
