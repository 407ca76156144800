#!/bin/bash
# SPDX-License-Identifier: MIT
#
# own_kernel_test.sh - a tester's own kernel as a column of
# dev/kernel-matrix (root; qemu's software emulation): a kernel that is
# none of Debian's packaged columns -- Debian's 6.1 image copied to a
# path of its own, as a tester gives a bzImage -- goes in by --kernel
# PATH alone (--kernels ''), its column is named by the release read
# from the image, the guest boots it (the release it reports is that
# one) and runs the suite's feature probes, every cell ok or a skip
# naming its reason, no FAIL, exit 0.  The kernel and the tools to boot
# it (qemu, virtme-ng) are installed by the matrix's own --prepare, so
# a machine that can install them runs this test and does not skip it.
# The probes only (--parts features): the whole quick suite runs in
# `make kernel-matrix` on Debian's columns.
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "/var/tmp/untorn-own-kernel-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 3
[ "$(id -u)" -eq 0 ] || ktap_skip_rest own-kernel "needs root (apt, qemu's guest disks)"

# 1: what the column needs, installed the matrix's way: a kernel image
# (Debian's 6.1, the oldest column) and qemu with virtme-ng
"$top/dev/kernel-matrix" --kernels 6.1 --no-host --parts features --prepare --out "$scratch/prep" \
	>"$scratch/prep.out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/prep.out" | tail -3
read -r release image < <(sed -n 's/^kernel-matrix: prepared 6.1: \([^,]*\), \(.*\)$/\1 \2/p' "$scratch/prep.out")
[ $rc -eq 0 ] && [ -n "${image:-}" ] && [ -f "$image" ]
ok $? "the matrix's --prepare installs a kernel to give as one's own, and qemu and virtme-ng: ${image:-none}"
[ -n "${image:-}" ] && [ -f "$image" ] || ktap_skip_rest own-kernel "no kernel image to copy (see above)"

# 2: the copy, at a path no Debian column uses, is the only kernel
own=$scratch/mine/bzImage
mkdir -p "$scratch/mine" && cp "$image" "$own"
t0=$SECONDS
"$top/dev/kernel-matrix" --kernels '' --kernel "$own" --no-host --parts features --timeout 1800 \
	--out "$scratch/m" >"$scratch/m.out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/m.out"
echo "# the guest: $((SECONDS - t0)) s"
grep -q "^| feature / test | $release |\$" "$scratch/m/matrix.md" && [ "$(cat "$scratch/m/$release.booted" 2>/dev/null)" = "$release" ]
ok $? "--kernel $own alone: a column named $release (read from the image), and the guest booted that kernel"

# 3: the suite ran in it: the probes' rows, each cell ok or a skip with
# its reason, none FAIL, exit 0
python3 - "$scratch/m/matrix.json" "$release" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
rel = sys.argv[2]
assert rel in m["columns"], m["columns"]
cells = {r: m["cells"][r][rel] for r in m["rows"] if m["cells"][r][rel] != "-"}
print("# %d cells in the %s column, %d ok" % (len(cells), rel, sum(1 for c in cells.values() if c == "ok")))
assert any(n.startswith("features-ext4: ") for n in cells), cells
assert any(n.startswith("features-xfs: ") for n in cells), cells
assert sum(1 for c in cells.values() if c == "ok") >= 5, cells
bad = {n: c for n, c in cells.items() if c != "ok" and not c.startswith("skip (")}
assert not bad, bad
PY
[ $? -eq 0 ] && [ $rc -eq 0 ]
ok $? "the feature probes ran in the guest on ext4 and XFS: every cell ok or a skip naming why, no FAIL, exit $rc"

ktap_finish
