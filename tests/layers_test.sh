#!/bin/bash
# SPDX-License-Identifier: MIT
#
# layers_test.sh - dev/check-layers, the check `make check-layers` runs:
# it passes on this tree (every C file under a rule of engine/LAYERS, no
# include cycle) and on a copy of its C files, and on such a copy it
# fails, naming each, on an upward include in the library (file, line,
# header and both layers), on a C file no rule claims anywhere in the
# tree, on a public header LAYERS does not list, on a library layer
# including a program's header, on a program or the kernel module
# including what its rule does not use, and on an include cycle; a
# broken LAYERS file (a malformed line, a rule using no rule) is bad
# input (exit 2, one line).
set -u

top=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/untorn-layers-$$-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
. "$(dirname "$0")/ktap.sh"
ktap_plan 12
command -v python3 >/dev/null || ktap_skip_rest layers "python3 not installed (apt-get install python3)"
check=$top/dev/check-layers
[ -x "$check" ] || ktap_skip_rest layers "no dev/check-layers beside the tests (a kernel tree): run it in an untorn tree"

"$check" >"$scratch/out" 2>&1
[ $? -eq 0 ] && grep -q ", 0 include cycles$" "$scratch/out"
ok $? "this tree: $(tail -1 "$scratch/out")"

# a copy of the tree's C files and LAYERS (no git there: the checker
# walks it)
copy() {
	rm -rf "$scratch/t" && mkdir "$scratch/t"
	(cd "$top" && find . \( -name '.?*' -o -path ./build -o -path './build-*' \) -prune -o \
		\( -name '*.[ch]' -o -path ./engine/LAYERS \) -print0 | tar --null -T - -cf -) |
		tar -C "$scratch/t" -xf -
}

copy
"$check" --root "$scratch/t" >"$scratch/out2" 2>&1
[ $? -eq 0 ] && [ "$(tail -1 "$scratch/out2")" = "$(tail -1 "$scratch/out")" ]
ok $? "a copy of its C files: the same ($(tail -1 "$scratch/out2"))"

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
echo '#include <stdint.h>' >"$scratch/t/engine/include/untorn/nosuch.h"
"$check" --root "$scratch/t" >"$scratch/out" 2>&1
[ $? -eq 1 ] && grep -q "engine/newpart/x.c: no rule in engine/LAYERS claims it" "$scratch/out" &&
	grep -q "engine/tree/btree.c:[0-9]*: includes <untorn/nosuch.h>, a public header engine/LAYERS does not list" "$scratch/out" &&
	grep -q "engine/include/untorn/nosuch.h: a public header engine/LAYERS does not list" "$scratch/out"
ok $? "a folder no layer claims and an unlisted public header fail"

# outside engine/ too: a new program beside the others, a C file in
# dev/, a header at the top (the checker looked in engine/ only once)
copy
echo 'int main(void) { return 0; }' >"$scratch/t/fs-integration/untorn-new.c"
mkdir -p "$scratch/t/dev" && echo 'int main(void) { return 0; }' >"$scratch/t/dev/tool.c"
echo '#define X 1' >"$scratch/t/x.h"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 1 ] && [ "$(wc -l <"$scratch/out")" -eq 3 ] &&
	grep -qx "fs-integration/untorn-new.c: no rule in engine/LAYERS claims it; add it or its folder to one there" "$scratch/out" &&
	grep -q "^dev/tool.c: no rule in engine/LAYERS claims it" "$scratch/out" &&
	grep -q "^x.h: no rule in engine/LAYERS claims it" "$scratch/out"
ok $? "a C file no rule claims fails wherever it is: $(grep -m1 ^fs-integration "$scratch/out")"

# the library never includes a program's header: not the command's, not
# one of fs-integration/tools/ (from fscaps, in the base layer)
copy
echo '#include "cli/cli.h"' >>"$scratch/t/engine/tree/btree.c"
echo '#include "../tools/probe/stop.h"' >>"$scratch/t/fs-integration/fscaps/fscaps.c"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 1 ] && [ "$(wc -l <"$scratch/out")" -eq 2 ] &&
	grep -qx "engine/tree/btree.c:[0-9]*: includes \"cli/cli.h\" of rule cli, beside the library; layer tree includes only layers at or below it" "$scratch/out" &&
	grep -q "^fs-integration/fscaps/fscaps.c:[0-9]*: includes \"../tools/probe/stop.h\" of rule fscheck, beside the library; layer base" "$scratch/out"
ok $? "a library layer including a program's header fails: $(head -1 "$scratch/out")"

# each program, the module and the tests include only what their rule
# uses: a layer above it, another program's header, the library in the
# kernel module, an untorn header in the FUSE disk model
copy
echo '#include "guard/guard.h"' >>"$scratch/t/fs-integration/tools/untorn-randwrite.c"
echo '#include "probe/stop.h"' >>"$scratch/t/fs-integration/tools/untorn-jw-write.c"
echo '#include "base/err.h"' >>"$scratch/t/fs-integration/kmod/jw_write.c"
echo '#include <untorn/err.h>' >>"$scratch/t/fs-integration/tools/untorn-hdd.c"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 1 ] && [ "$(wc -l <"$scratch/out")" -eq 4 ] &&
	grep -q "untorn-randwrite.c:[0-9]*: includes \"guard/guard.h\" of layer guard; randwrite uses only the library up to layer base$" "$scratch/out" &&
	grep -q "untorn-jw-write.c:[0-9]*: includes \"probe/stop.h\" of rule fscheck; jw-write uses only the library up to layer io$" "$scratch/out" &&
	grep -q "jw_write.c:[0-9]*: includes \"base/err.h\" of layer base; kmod uses only layer kabi$" "$scratch/out" &&
	grep -q "untorn-hdd.c:[0-9]*: includes <untorn/err.h> of layer base; hdd uses nothing of the tree$" "$scratch/out"
ok $? "a program or the kernel module including what its rule does not use fails"

# two headers of a layer that include each other, a header including itself
copy
echo '#include "recover.h"' >>"$scratch/t/engine/mtr/mtr.h"
echo '#include "mtr.h"' >>"$scratch/t/engine/mtr/recover.h"
printf '#include "self.h"\n' >"$scratch/t/engine/mtr/self.h"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 1 ] && [ "$(wc -l <"$scratch/out")" -eq 2 ] &&
	grep -qx "engine/mtr/mtr.h: in an include cycle: engine/mtr/mtr.h -> engine/mtr/recover.h -> engine/mtr/mtr.h" "$scratch/out" &&
	grep -qx "engine/mtr/self.h: in an include cycle: engine/mtr/self.h -> engine/mtr/self.h" "$scratch/out"
ok $? "an include cycle fails, named: $(head -1 "$scratch/out")"

copy
echo "broken line" >>"$scratch/t/engine/LAYERS"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "not 'layer: folders : public headers'" "$scratch/err"
ok $? "a malformed LAYERS line: exit 2, one line"

copy
sed -i 's/^hdd: .*/& nosuch/' "$scratch/t/engine/LAYERS"
"$check" --root "$scratch/t" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "hdd uses 'nosuch', which is no rule there" "$scratch/err"
ok $? "a rule using no rule: exit 2, one line"

"$check" --root "$scratch/none" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ]
ok $? "no tree there: exit 2, one line ($(cat "$scratch/err"))"

ktap_finish
