#!/bin/bash
# SPDX-License-Identifier: MIT
#
# install_test.sh - `make install PREFIX=...` installs what a user builds
# against: the API's headers and no other, every call they declare with
# its man page and exported by the shared library, which exports nothing
# else; a C++ program builds against them; a program using only <untorn.h> and pkg-config's flags
# for untorn compiles, links against the shared and the static library,
# and runs; the installed `untorn` command runs; scripts, bpftrace
# scripts, fio jobs and man pages are installed and the scripts find the
# installed binaries and files (not the build tree's).
set -u

TOP=${UNTORN_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
prefix=$(mktemp -d "/tmp/untorn-install-$$-XXXXXX")
trap 'rm -rf "$prefix"' EXIT
scratch=$prefix
. "$(dirname "$0")/ktap.sh"
ktap_plan 17

# the shared library's ABI version, as the Makefile names it
soversion=$(sed -n 's/^SOVERSION *:= *//p' "$TOP/Makefile")
make -s -C "$TOP" install BUILD="$BUILD" PREFIX="$prefix/usr" DESTDIR= >"$prefix/log" 2>&1
rc=$?
[ $rc -ne 0 ] && sed 's/^/# /' "$prefix/log"
[ $rc -eq 0 ] && [ -x "$prefix/usr/bin/untorn" ] && [ -f "$prefix/usr/include/untorn.h" ] &&
	[ -f "$prefix/usr/lib/libuntorn.a" ] && [ -e "$prefix/usr/lib/libuntorn.so.$soversion" ] &&
	[ -f "$prefix/usr/lib/pkgconfig/untorn.pc" ]
ok $? "make install puts command, header, static and shared library, untorn.pc under PREFIX"

cat >"$prefix/user.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <untorn.h>

/* The guards by name, and with a directory the engine: init, open (its
 * holder listed), a transaction, get, close -- all through the one
 * include. */
int main(int argc, char **argv)
{
	struct ut_init_opts io = { .page_size = 4096 };
	struct ut_err err = { "" };
	struct ut_recovery_report rep;
	struct ut_lock_holder h[4];
	struct ut_engine_opts o;
	struct ut_engine *eng;
	struct ut_txn t;
	char val[16];
	uint32_t len;
	int id = ut_guard_parse("doublewrite");

	if (id != UT_GUARD_DOUBLEWRITE || strcmp(ut_guard_name(id), "doublewrite") ||
	    !ut_guard_help(id) || !strstr(ut_guard_names(), "journal"))
		return 1;
	if (argc < 2)
		return 0;
	io.guard = id;
	ut_engine_opts_default(&o);
	if (ut_store_init(argv[1], &io, &err) || ut_engine_open(argv[1], &o, &eng, &rep, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (ut_store_holders(argv[1], h, 4) != 1 || h[0].pid != getpid() || !h[0].exclusive)
		return 1;
	ut_txn_begin(eng, &t);
	if (ut_txn_put(&t, 42, "hello", 5, &err) || ut_txn_commit(&t, &err) ||
	    ut_get(eng, 42, val, sizeof(val), &len) || ut_engine_close(eng, &err) ||
	    len != 5 || memcmp(val, "hello", 5)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	return 0;
}
C
export PKG_CONFIG_PATH="$prefix/usr/lib/pkgconfig"
# a sanitized build (make check SANITIZE=...) needs the same flags to link
# shellcheck disable=SC2046,SC2086
cc ${SAN_FLAGS:-} -o "$prefix/user-shared" "$prefix/user.c" $(pkg-config --cflags --libs untorn) 2>&1 | sed 's/^/# /'
LD_LIBRARY_PATH="$prefix/usr/lib" "$prefix/user-shared" "$prefix/store"
ok $? "a program built with pkg-config --cflags --libs untorn runs against the shared library (guards, and the engine: init, open, holders, a transaction, get)"

# the installed API: untorn.h and the headers it includes, no other (the
# library's own headers are beside their sources, engine/LAYERS); each
# compiles alone, from the installed directory only, as strict C99
public="engine.h err.h guard.h jw.h recovery.h store.h"
bad=""
[ "$(ls "$prefix/usr/include" | paste -sd' ')" = "untorn untorn.h" ] || bad="$bad include/: $(ls "$prefix/usr/include" | paste -sd' ');"
got=$(ls "$prefix/usr/include/untorn" | paste -sd' ')
[ "$got" = "$public" ] || bad="$bad include/untorn/: $got;"
for h in untorn.h $public; do
	case $h in untorn.h) inc=$h ;; *) inc=untorn/$h ;; esac
	[ "$h" = untorn.h ] || grep -q "^#include <untorn/$h>" "$prefix/usr/include/untorn.h" || bad="$bad untorn.h leaves out $h;"
	printf '#include <%s>\n' "$inc" |
		cc -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/usr/include" -x c - 2>"$prefix/cc.err" ||
		bad="$bad <$inc> alone: $(grep -m1 error "$prefix/cc.err");"
done
[ -z "$bad" ] || echo "# not the API:$bad"
[ -z "$bad" ]
ok $? "include/ holds untorn.h and untorn/{$(echo $public | sed 's/ /,/g')}, no other; each compiles alone (C99, -Wpedantic)"

# every call the installed headers declare (ut_NAME( outside comments)
# has an installed man page, whose NAME line names it
man3=$prefix/usr/share/man/man3
calls=$(cat "$prefix/usr/include/untorn.h" "$prefix"/usr/include/untorn/*.h | perl -0777 -pe 's{/\*.*?\*/}{}gs' |
	grep -oE '\but_[a-z0-9_]+[[:space:]]*\(' | tr -d ' \t(' | sort -u)
nopage=""
for f in $calls; do
	[ -e "$man3/$f.3" ] && sed -n '/^\.SH NAME/{n;p;q}' "$man3/$f.3" | grep -qE "(^|[ ,])$f(,| )" ||
		nopage="$nopage $f"
done
[ -z "$nopage" ] || echo "# no man page naming it:$nopage"
[ -n "$calls" ] && [ -z "$nopage" ]
ok $? "every call the installed headers declare has its man page ($(echo $calls | wc -w) calls, $(ls "$man3" | grep -c '^ut_') pages and links)"

# the shared library exports exactly those calls (a version script made
# from the headers): the engine's own functions are not ABI
exported=$(nm -D --defined-only "$prefix/usr/lib/libuntorn.so.$soversion" | awk '$2 == "T" || $2 == "D" || $2 == "B" { sub(/@.*/, "", $3); print $3 }' | sort -u)
extra=$(comm -13 <(echo "$calls") <(echo "$exported") | paste -sd' ')
missing=$(comm -23 <(echo "$calls") <(echo "$exported") | paste -sd' ')
[ -z "$extra" ] || echo "# exported, not in the headers: $(echo "$extra" | cut -c1-300)"
[ -z "$missing" ] || echo "# declared, not exported: $missing"
[ -n "$calls" ] && [ -z "$extra" ] && [ -z "$missing" ]
ok $? "libuntorn.so exports the calls the headers declare and nothing else ($(echo "$exported" | wc -w) symbols)"

# a C++ program includes <untorn.h> and links against the shared library
# (the public headers declare their calls extern "C")
# shellcheck disable=SC2046,SC2086
c++ -std=c++20 ${SAN_FLAGS:-} -x c++ -o "$prefix/user-cxx" "$prefix/user.c" $(pkg-config --cflags --libs untorn) 2>&1 | sed 's/^/# /'
LD_LIBRARY_PATH="$prefix/usr/lib" "$prefix/user-cxx" "$prefix/store-cxx"
ok $? "a C++ program (the same, built with c++ -std=c++20) links against the shared library and runs"

# the library's manual: libuntorn(3)'s example program, as the page
# prints it, builds with pkg-config, runs twice on one store and prints
# what the page says
sed -n '/^\.SH EXAMPLE/,/^\.SH/{/^\.EX/,/^\.EE/p}' "$man3/libuntorn.3" |
	awk '/^\.EE/ { exit } !/^\.EX/' | sed 's/\\e/\\/g; s/\\-/-/g' >"$prefix/example.c"
want=$(sed -n '/^\$ \.\/example/,/^\.EE/p' "$man3/libuntorn.3" | sed '1d;$d')
# shellcheck disable=SC2046,SC2086
cc ${SAN_FLAGS:-} -Wall -Werror -o "$prefix/example" "$prefix/example.c" $(pkg-config --cflags --libs untorn) 2>&1 | sed 's/^/# /'
got1=$(LD_LIBRARY_PATH="$prefix/usr/lib" "$prefix/example" "$prefix/example-store" 2>&1)
got2=$(LD_LIBRARY_PATH="$prefix/usr/lib" "$prefix/example" "$prefix/example-store" 2>&1)
[ "$got1" = "$want" ] && [ "$got2" = "$want" ]
ok $? "libuntorn(3)'s example builds with pkg-config and prints what the page says (twice on one store)"

# the system call table is a test hook, not API: untorn.h leaves it out
# and it is not installed (tests built in the tree include io/sysio.h)
printf '#include <untorn.h>\nint main(void) { return ut_sys.open != 0; }\n' >"$prefix/hook.c"
# shellcheck disable=SC2046
! cc -fsyntax-only "$prefix/hook.c" $(pkg-config --cflags untorn) 2>/dev/null &&
	[ ! -e "$prefix/usr/include/untorn/sysio.h" ]
ok $? "untorn.h leaves out the syscall table (a mutable global), and it is not installed"

if [ -n "${SAN_FLAGS:-}" ]; then
	ok_skip "the same program links statically with pkg-config --static" \
		"sanitizer runtimes cannot be linked statically ($SAN_FLAGS)"
else
	# shellcheck disable=SC2046
	cc -static -o "$prefix/user-static" "$prefix/user.c" $(pkg-config --static --cflags --libs untorn) 2>&1 | sed 's/^/# /'
	"$prefix/user-static"
	ok $? "the same program links statically with pkg-config --static"
fi

"$prefix/usr/bin/untorn" --version | grep -q '^untorn '
ok $? "the installed untorn command runs"

share=$prefix/usr/share/untorn
missing=""
for f in bin/untorn-fscheck bin/untorn-jw-write bin/untorn-mkfs-journal bin/untorn-mkfs-atomic bin/untorn-emulate-hdd \
	 bin/untorn-profile bin/untorn-fio-compare bin/untorn-demo share/untorn/ebpf/pick \
	 share/untorn/ebpf/jbd2-commit.bt share/untorn/ebpf/old/uring.bt share/untorn/ebpf/old/uring-rw.bt share/untorn/fio-jobs/doublewrite.fio \
	 share/untorn/fio-jobs/hdd.fio share/untorn/scripts/lib/common.sh \
	 share/man/man1/untorn.1 share/man/man8/untorn-fscheck.8 share/man/man1/untorn-mkfs-journal.1 \
	 share/man/man5/untorn-format.5 share/man/man7/untorn-guards.7; do
	[ -e "$prefix/usr/$f" ] || missing="$missing $f"
done
# scripts/ holds what users run: every program there is installed
for f in "$TOP"/scripts/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	[ -e "$prefix/usr/bin/untorn-${f##*/}" ] || missing="$missing bin/untorn-${f##*/}"
	[ -e "$prefix/usr/share/man/man1/untorn-${f##*/}.1" ] || missing="$missing share/man/man1/untorn-${f##*/}.1"
done
# and what they source or run from scripts/lib (bench-matrix's reports)
for f in "$TOP"/scripts/lib/*.sh "$TOP"/scripts/lib/*.py; do
	[ -e "$share/scripts/lib/${f##*/}" ] || missing="$missing share/untorn/scripts/lib/${f##*/}"
done
[ -z "$missing" ] || echo "# missing:$missing"
[ -z "$missing" ]
ok $? "every program in scripts/ (as untorn-NAME) and its scripts/lib, bpftrace scripts, fio jobs and man pages installed"

# every installed script answers --help through its bin/ link, its
# USAGE naming it as installed (untorn-NAME), and so every other script
# it names (no scripts/NAME of an installed script)
bad=""
names=$(ls "$share/scripts" | grep -v '^lib$' | paste -sd'|' -)
for s in "$prefix"/usr/bin/untorn-*; do
	case $s in */untorn-fscheck|*/untorn-hdd|*/untorn-jw-write) continue ;; esac
	"$s" --help >"$prefix/help" 2>&1
	grep -q "^USAGE: ${s##*/} " "$prefix/help" && ! grep -Eq "scripts/($names)([^a-z-]|$)" "$prefix/help" ||
		bad="$bad ${s##*/}($(grep -m1 -Eo "USAGE: [^ ]*|scripts/($names)" "$prefix/help" | head -1))"
done
[ -z "$bad" ] || echo "# wrong USAGE or names:$bad"
[ -z "$bad" ]
ok $? "each installed untorn-* script prints its USAGE with --help, naming itself and the other scripts untorn-NAME"

# options cannot drift: every option a command's --help names is in its
# man page (written \-\-name there)
bad=""
for cmd in init info check put get delete load dump "bench write" "bench scan" recover verify guards; do
	# shellcheck disable=SC2086
	for o in $("$prefix/usr/bin/untorn" $cmd --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$TOP/man/untorn.1" || bad="$bad untorn $cmd $o;"
	done
done
for o in $("$prefix/usr/bin/untorn-fscheck" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$TOP/man/untorn-fscheck.8" || bad="$bad untorn-fscheck $o;"
done
for s in "$prefix"/usr/bin/untorn-*; do
	case $s in */untorn-fscheck) continue ;; esac
	page=$prefix/usr/share/man/man1/${s##*/}.1
	for o in $("$s" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$page" 2>/dev/null || bad="$bad ${s##*/} $o;"
	done
done
[ -z "$bad" ] || echo "# not in the man page:$bad"
[ -z "$bad" ]
ok $? "every option in the --help of untorn, untorn-fscheck and each installed script and program is in its man page"

# --version: every installed program and script names itself and the release
bad=""
for s in "$prefix"/usr/bin/untorn*; do
	[ "$("$s" --version 2>&1)" = "${s##*/} $(cat "$TOP/VERSION")" ] || bad="$bad ${s##*/}($("$s" --version 2>&1 | head -1))"
done
[ -z "$bad" ] || echo "# wrong --version:$bad"
[ -z "$bad" ]
ok $? "--version of every installed program and script: its name and $(cat "$TOP/VERSION")"

# the installed scripts use the installed binaries and files
found=$(env -u UNTORN -u UNTORN_FSCHECK -u UNTORN_HDD bash -c \
	'top=""; . "$1/scripts/lib/common.sh"; echo "$UNTORN $UNTORN_FSCHECK"' _ "$share")
job=$(env -u UNTORN "$prefix/usr/bin/untorn-fio-compare" --print-job journal --device hdd | sed -n 3p)
echo "# $found; $job"
[ "$found" = "$prefix/usr/bin/untorn $prefix/usr/bin/untorn-fscheck" ] &&
	[ "$job" = "include $share/fio-jobs/hdd.fio" ]
ok $? "installed scripts find the installed untorn, untorn-fscheck and fio-jobs/"

if command -v groff >/dev/null; then
	pages=$(ls "$prefix"/usr/share/man/man*/*.[1-8])
	# from the manual's root, where a page's .so names its target
	warn=$(cd "$prefix/usr/share/man" && for m in $pages; do groff -man -ww -z "$m" 2>&1; done)
	[ -z "$warn" ] || echo "$warn" | sed 's/^/# /'
	[ -z "$warn" ] && grep -q '^\.SH EXIT STATUS' "$prefix/usr/share/man/man8/untorn-fscheck.8"
	ok $? "every installed man page formats without warnings ($(echo $pages | wc -w) pages)"
else
	ok_skip "man pages format without warnings" "groff not installed (apt-get install groff-base)"
fi

# man -l opens every section-3 page, an alias (another name of a page)
# included, from the checkout and from the installed manual, in a
# directory that is neither's root (a .so line would not resolve there)
if command -v man >/dev/null; then
	bad=""
	for m in "$TOP"/man/*.3 "$man3"/*.3; do
		out=$(cd / && MANPAGER=cat MANWIDTH=80 man -l "$m" 2>"$prefix/man.err")
		{ [ ! -s "$prefix/man.err" ] && grep -q '^NAME' <<<"$out"; } || bad="$bad $m($(head -c 120 "$prefix/man.err"))"
	done
	[ -z "$bad" ] || echo "# man -l fails:$bad"
	[ -z "$bad" ] && [ -n "$(find "$man3" -name 'ut_get.3' -type l)" ]
	ok $? "man -l opens every section-3 page and alias from / in the checkout and installed ($(ls "$man3" | wc -l) installed)"
else
	ok_skip "man -l opens every section-3 page and alias" "man not installed (apt-get install man-db)"
fi

ktap_finish
