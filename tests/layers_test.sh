#!/bin/bash
# SPDX-License-Identifier: MIT
#
# layers_test.sh - dev/check-layers, the check `make check-layers` runs:
# it passes on this tree, and on a copy of the library it fails on an
# upward include (naming file, line, header and both layers), on a file
# no layer claims and on a public header LAYERS does not list; a broken
# LAYERS file is bad input (exit 2, one line).
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/untorn-layers-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 6
command -v python3 >/dev/null || ktap_skip_rest layers "python3 not installed (apt-get install python3)"
check=$top/dev/check-layers
[ -x "$check" ] || ktap_skip_rest layers "no dev/check-layers beside the tests (a kernel tree): run it in an untorn tree"

"$check" >"$scratch/out" 2>&1
ok $? "this tree: $(tail -1 "$scratch/out")"

# a copy holding what LAYERS names
copy() {
	rm -rf "$scratch/t"
	mkdir -p "$scratch/t/fs-integration/kmod" "$scratch/t/fs-integration/tools"
	cp -a "$top/engine" "$scratch/t/"
	cp -a "$top/fs-integration/fscaps" "$scratch/t/fs-integration/"
	cp -a "$top/fs-integration/tools/mysql" "$top/fs-integration/tools/probe" \
		"$top/fs-integration/tools/untorn-fscheck.c" \
		"$top/fs-integration/tools/untorn-jw-write.c" "$scratch/t/fs-integration/tools/"
	cp "$top/fs-integration/kmod/untorn_jw_uapi.h" "$scratch/t/fs-integration/kmod/"
}

copy
sed -i '0,/^#include/s//#include "tree\/btree.h"\n#include/' "$scratch/t/engine/base/err.c"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
rc=$?
line=$(grep -n '#include "tree/btree.h"' "$scratch/t/engine/base/err.c" | cut -d: -f1)
[ $rc -eq 1 ] && grep -qx "engine/base/err.c:$line: includes \"tree/btree.h\" of layer tree, above its own layer base" "$scratch/out" &&
	[ "$(wc -l <"$scratch/out")" -eq 1 ]
ok $? "an upward include fails, named: $(head -1 "$scratch/out")"

copy
printf '#include <untorn/engine.h>\n' >>"$scratch/t/engine/include/untorn/guard.h"
"$check" --root "$scratch/t" >"$scratch/out" 2>&1
[ $? -eq 1 ] && grep -q "engine/include/untorn/guard.h:[0-9]*: includes <untorn/engine.h> of layer engine, above its own layer guard" "$scratch/out"
ok $? "a public header that includes upward fails too"

copy
mkdir "$scratch/t/engine/newpart" && echo '#include "base/bytes.h"' >"$scratch/t/engine/newpart/x.c"
echo '#include <untorn/nosuch.h>' >>"$scratch/t/engine/tree/btree.c"
"$check" --root "$scratch/t" >"$scratch/out" 2>&1
[ $? -eq 1 ] && grep -q "engine/newpart/x.c: no layer in engine/LAYERS claims it" "$scratch/out" &&
	grep -q "engine/tree/btree.c:[0-9]*: includes <untorn/nosuch.h>, a public header engine/LAYERS does not list" "$scratch/out"
ok $? "a folder no layer claims and an unlisted public header fail"

copy
echo "broken line" >>"$scratch/t/engine/LAYERS"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "not 'layer: folders : public headers'" "$scratch/err"
ok $? "a malformed LAYERS line: exit 2, one line"

"$check" --root "$scratch/none" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ]
ok $? "no tree there: exit 2, one line ($(cat "$scratch/err"))"

ktap_finish
