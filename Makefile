# SPDX-License-Identifier: MIT
#
# Makefile - user-space build of untorn: libuntorn (static and shared), the
# `untorn` command, the tests, install and the demo.  The kernel module is
# built by Kbuild: `make kmod [KDIR=/lib/modules/RELEASE/build]`.
#
#   make                 build into build/
#   make test            run the KTAP test suite (tests/)
#   make check           install build dependencies if missing, build,
#                        check-layers, test
#   make check-layers    every C file under a rule of engine/LAYERS, every
#                        include keeping it, no include cycle
#   make check SANITIZE=address,undefined   the suite under ASan + UBSan
#   make tsan            ThreadSanitizer on the multi-threaded tests
#   make fuzz FUZZ_SECONDS=30   every libFuzzer harness for that long
#   make lint            clang-format, cppcheck and clang-tidy (tests/lint/)
#   make crash-test      power-cut simulation, 200 cuts per guard x filesystem
#   make demo            the main job: every guard's bench write and every
#                        read policy's cold scan on an SSD-like loop device
#                        and the HDD model, one table, PNG + JSON in
#                        $(UNTORN_DEMO_DIR) (default /var/tmp/untorn-demo)
#   make man             the scripts' manual pages, from their --help
#   make install PREFIX=/usr/local DESTDIR=
#                        command, library, header, pkg-config file, man
#                        pages; scripts, bpftrace scripts and fio jobs in
#                        PREFIX/share/untorn, the scripts as untorn-NAME

VERSION    := $(shell cat VERSION)
# 1: struct ut_geom (in struct ut_store) gained the page layout's fields
# 2: struct ut_txn gained its write set (transactions all or nothing)
SOVERSION  := 2
PREFIX     ?= /usr/local
DESTDIR    ?=
CC         ?= cc
# SANITIZE=address,undefined or SANITIZE=thread: a build of its own
# (build-address-undefined, build-thread) with the sanitizers on, and any
# report fails the test that triggered it
SANITIZE   ?=
# TEST_GUARD=1: a build of its own (build-testguard) whose library holds
# one guard more, tests/guard_test.c, and its line in guard_list.h
# (guards_plugin_test.sh)
TEST_GUARD ?=
comma      := ,
BUILD      ?= build$(if $(SANITIZE),-$(subst $(comma),-,$(SANITIZE)))$(if $(TEST_GUARD),-testguard)
SAN_FLAGS  := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all)

CFLAGS     ?= -O2 -g
UT_CFLAGS  := -std=gnu11 -Wall -Wextra -Werror -fPIC -D_GNU_SOURCE \
	      -DUNTORN_VERSION='"$(VERSION)"' -Iengine/include -Iengine -Ifs-integration/fscaps \
	      -Ifs-integration/kmod $(CFLAGS) $(SAN_FLAGS)
LDFLAGS    += $(SAN_FLAGS)
LDLIBS     := -luring -lm
# USDT probes (engine/base/probes.h) when sys/sdt.h (systemtap-sdt-dev) is there
HAVE_SDT   := $(shell echo '\#include <sys/sdt.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo yes)
UT_CFLAGS  += $(if $(HAVE_SDT),-DUT_HAVE_SDT)
UT_CFLAGS  += $(if $(TEST_GUARD),-DUT_TEST_GUARD)

# the library's layers, bottom up (engine/LAYERS, make check-layers)
LIB_DIRS   := base io page guard log store buf mtr tree
LIB_SRCS   := $(wildcard $(LIB_DIRS:%=engine/%/*.c) engine/*.c fs-integration/fscaps/*.c) \
	      $(if $(TEST_GUARD),tests/guard_test.c)
CLI_SRCS   := $(wildcard engine/cli/*.c)
# untorn-fscheck's own parts: --mysql (a server's options, its
# tablespace's page size) and --probe (split page writes, measured)
FSCHECK_SRCS := $(wildcard fs-integration/tools/mysql/*.c fs-integration/tools/probe/*.c)
FSCHECK_OBJS := $(FSCHECK_SRCS:%.c=$(BUILD)/%.o)
LIB_OBJS   := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS   := $(CLI_SRCS:%.c=$(BUILD)/%.o)
HEADERS    := $(wildcard engine/*.h $(LIB_DIRS:%=engine/%/*.h) engine/include/*.h engine/include/untorn/*.h engine/cli/*.h \
	      fs-integration/fscaps/*.h fs-integration/tools/mysql/*.h fs-integration/tools/probe/*.h \
	      fs-integration/kmod/untorn_jw_uapi.h)

# the library's API, all it installs under include/ (untorn.h includes
# them); its own headers are beside their sources (engine/LAYERS)
PUBLIC_HEADERS := $(wildcard engine/include/untorn/*.h)

STATIC_LIB := $(BUILD)/libuntorn.a
SHARED_LIB := $(BUILD)/libuntorn.so.$(VERSION)
SONAME     := libuntorn.so.$(SOVERSION)
UNTORN     := $(BUILD)/untorn
FSCHECK    := $(BUILD)/untorn-fscheck
JWWRITE    := $(BUILD)/untorn-jw-write
HDD        := $(BUILD)/untorn-hdd
RANDWRITE  := $(BUILD)/untorn-randwrite
HAVE_FUSE3 := $(shell pkg-config --exists fuse3 && echo yes)

.PHONY: deps-fuzz deps-lint
.PHONY: all test check deps demo install uninstall clean crash-test tsan fuzz fuzz-build lint \
	test-build kernel-matrix kernel-test kmod check-layers man

all: $(STATIC_LIB) $(SHARED_LIB) $(UNTORN) $(FSCHECK) $(JWWRITE) $(RANDWRITE) $(if $(HAVE_FUSE3),$(HDD))

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(UT_CFLAGS) -c -o $@ $<

$(STATIC_LIB): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# the shared library exports the calls the public headers declare and
# nothing else (the engine's own functions stay its own): a version
# script made from the headers, so the headers stay the one list
$(BUILD)/libuntorn.map: $(PUBLIC_HEADERS) dev/export-map
	@mkdir -p $(dir $@)
	dev/export-map UNTORN_$(SOVERSION) $(PUBLIC_HEADERS) > $@.tmp && mv $@.tmp $@

$(SHARED_LIB): $(LIB_OBJS) $(BUILD)/libuntorn.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/libuntorn.map \
		-o $@ $(LIB_OBJS) $(LDFLAGS) $(LDLIBS)
	ln -sf libuntorn.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $(BUILD)/libuntorn.so

$(UNTORN): $(CLI_OBJS) $(STATIC_LIB)
	$(CC) -o $@ $(CLI_OBJS) $(STATIC_LIB) $(LDFLAGS) $(LDLIBS)

# the HDD model (scripts/emulate-hdd), built when libfuse3-dev is installed
$(HDD): fs-integration/tools/untorn-hdd.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -DUNTORN_VERSION='"$(VERSION)"' $(CFLAGS) $$(pkg-config --cflags fuse3) \
		-o $@ $< $$(pkg-config --libs fuse3) -lm -lpthread

$(FSCHECK): $(BUILD)/fs-integration/tools/untorn-fscheck.o $(FSCHECK_OBJS) $(STATIC_LIB)
	$(CC) -o $@ $< $(FSCHECK_OBJS) $(STATIC_LIB) $(LDFLAGS) $(LDLIBS)

$(JWWRITE): $(BUILD)/fs-integration/tools/untorn-jw-write.o $(STATIC_LIB)
	$(CC) -o $@ $< $(STATIC_LIB) $(LDFLAGS) $(LDLIBS)

# random page writes with and without RWF_ATOMIC (fio 3.33 cannot)
$(RANDWRITE): $(BUILD)/fs-integration/tools/untorn-randwrite.o $(STATIC_LIB)
	$(CC) -o $@ $< $(STATIC_LIB) $(LDFLAGS) $(LDLIBS)

# under ThreadSanitizer, the tests where threads share the engine: group
# commit, page cleaners against writers (and writers changing a page
# while its flush is under way), doublewrite slots, read-ahead
# completions, scans while writers split leaves, crashes while all of it
# runs
TSAN_TESTS := ring_test fault_test engine_test txn_test scan_test scan_writers_test crash_test flush_test

test: all
	$(MAKE) -C tests run_tests BUILD=$(abspath $(BUILD)) SAN_FLAGS="$(SAN_FLAGS)" \
		$(if $(filter thread,$(SANITIZE)),ONLY="$(TSAN_TESTS)")

# the test programs and helpers without running them (kernel-matrix
# takes them into its guests)
test-build: all
	$(MAKE) -C tests all BUILD=$(abspath $(BUILD)) SAN_FLAGS="$(SAN_FLAGS)"

# ThreadSanitizer on the multi-threaded tests (make check SANITIZE=thread)
tsan:
	$(MAKE) check SANITIZE=thread

# libFuzzer harnesses (tests/fuzz/fuzz_*.c), one per on-disk or kernel
# text parser, built with clang, ASan and UBSan against a library built
# the same way; each runs FUZZ_SECONDS on a copy of its seed corpus
FUZZ_SECONDS ?= 30
FUZZ_BUILD   := build-fuzz
FUZZERS      := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-Iengine/include -Iengine -Ifs-integration/fscaps -D_GNU_SOURCE

fuzz-build: $(if $(filter 0,$(shell id -u)),deps-fuzz)
	@command -v clang >/dev/null || { echo "fuzz: clang not found; install it: apt-get install clang libclang-rt-14-dev" >&2; exit 2; }
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=clang CFLAGS="-g -O1" SANITIZE=fuzzer-no-link,address,undefined \
		$(FUZZ_BUILD)/libuntorn.a
	@mkdir -p $(FUZZ_BUILD)/bin
	for f in $(FUZZERS); do \
		clang $(FUZZ_FLAGS) -o $(FUZZ_BUILD)/bin/fuzz_$$f tests/fuzz/fuzz_$$f.c \
			$(FUZZ_BUILD)/libuntorn.a -luring -lm -lpthread || exit 1; \
	done

# cppcheck and clang-tidy on the C sources, configured in tests/lint/;
# any finding fails (the kernel module is checked by its compiler, -Werror
# in its Kbuild, and by the kernel matrix)
LINT_SRCS := $(LIB_SRCS) $(CLI_SRCS) $(FSCHECK_SRCS) $(addprefix fs-integration/tools/,untorn-fscheck.c \
	     untorn-jw-write.c untorn-randwrite.c)
LINT_INC  := -D_GNU_SOURCE -DUT_HAVE_SDT -DUNTORN_VERSION='"$(VERSION)"' -Iengine/include -Iengine -Ifs-integration/fscaps -Ifs-integration/kmod

# every C file of the project already formatted as .clang-format says
# (the kernel's style); `clang-format -i FILE` fixes one
FORMAT_SRCS := $(wildcard engine/*.[ch] $(LIB_DIRS:%=engine/%/*.[ch]) engine/cli/*.[ch] \
		engine/include/*.h engine/include/untorn/*.h fs-integration/tools/*.c \
		fs-integration/fscaps/*.[ch] fs-integration/tools/mysql/*.[ch] fs-integration/tools/probe/*.[ch] fs-integration/kmod/*.[ch] \
		tests/*.[ch] tests/fuzz/*.c)

lint: $(if $(filter 0,$(shell id -u)),deps-lint)
	@command -v cppcheck >/dev/null && command -v clang-tidy >/dev/null && command -v clang-format >/dev/null || \
		{ echo "lint: cppcheck, clang-tidy or clang-format not found; install them: apt-get install cppcheck clang-tidy clang-format" >&2; exit 2; }
	clang-format --dry-run -Werror $(FORMAT_SRCS)
	cppcheck --enable=warning,performance,portability --std=c11 --quiet --error-exitcode=1 \
		--inline-suppr --suppressions-list=tests/lint/cppcheck.txt $(LINT_INC) \
		-i fs-integration/kmod engine engine/cli fs-integration tests/*.c tests/fuzz
	clang-tidy --quiet --config-file=tests/lint/clang-tidy.yaml $(LINT_SRCS) -- -std=gnu11 $(LINT_INC)

fuzz: fuzz-build
	tests/fuzz/run-fuzz $(FUZZ_BUILD)/bin $(FUZZ_BUILD)/run $(FUZZ_SECONDS) $(FUZZERS)

# 200 power cuts per guard x filesystem (root; takes long, prints progress)
crash-test: all
	dev/crash-matrix --trials $(or $(TRIALS),200)

# the kernel matrix (dev/kernel-matrix): Debian's 6.1 (the oldest LTS),
# 6.12 (the first with atomic writes on scsi_debug) and its newest
# (trixie-backports: ext4 and XFS atomic writes, software and hardware),
# and the host; quick (probes, the tests that ask the kernel something,
# a few power-cut replay points per guard; two guests at once), full for
# every flush point and the long tests.  CI boots 6.1 and the newest
# (KM_KERNELS=6.1,newest: .ci/run says why)
KM_OUT ?= $(BUILD)/kernel-matrix
KM_KERNELS ?= 6.1,6.12,newest
KM_ARGS ?= # more options for dev/kernel-matrix (CI: --no-host)
kernel-matrix: test-build
	dev/kernel-matrix --kernels $(KM_KERNELS) --suite quick --jobs 2 $(KM_ARGS) --out $(KM_OUT)

kernel-test: test-build
	dev/kernel-matrix --kernels $(KM_KERNELS) --suite full $(KM_ARGS) --out $(KM_OUT)-full

# the untorn_jw module (top-level Kbuild, fs-integration/kmod/) for one
# kernel, from its headers (Debian: linux-headers-RELEASE), into
# build/kmod/RELEASE/untorn_jw.ko: Kbuild runs with M= on a directory of
# links to the sources, so that its objects (and its `clean`, which
# deletes every *.o under M) stay out of the tree
KDIR ?= /lib/modules/$(shell uname -r)/build
KMOD_SRCS := $(wildcard fs-integration/kmod/*.[ch])
kmod:
	@test -f $(KDIR)/Makefile || { echo "make kmod: no kernel build directory at $(KDIR); install the kernel's headers (apt-get install linux-headers-RELEASE) or give KDIR=/lib/modules/RELEASE/build" >&2; exit 2; }
	@rel=$$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h) && \
	stage=$(abspath $(BUILD))/kmod/$$rel && rm -rf $$stage && mkdir -p $$stage/fs-integration/kmod && \
	ln -s $(CURDIR)/Kbuild $$stage/Kbuild && \
	for f in $(KMOD_SRCS); do ln -s $(CURDIR)/$$f $$stage/$$f; done && \
	$(MAKE) -C $(KDIR) M=$$stage modules && echo "built $$stage/untorn_jw.ko"

deps:
	dev/install-deps

deps-fuzz:
	dev/install-deps fuzz

deps-lint:
	dev/install-deps lint

check: deps
	$(MAKE) all
	$(MAKE) check-layers
	$(MAKE) test

# every C file of the tree under a rule of engine/LAYERS (the library's
# layers, the programs, the kernel module, the tests), every include
# keeping its rule, no include cycle
check-layers:
	dev/check-layers

# installs what is missing first when root (as check does)
DEMO_ARGS ?= # options for scripts/demo (CI: --rows 100000 --seconds 2)
demo: $(if $(filter 0,$(shell id -u)),deps)
	$(MAKE) all
	UNTORN=$(abspath $(UNTORN)) UNTORN_HDD=$(abspath $(HDD)) scripts/demo $(DEMO_ARGS)

# the scripts users run, installed as PREFIX/bin/untorn-NAME
USER_SCRIPTS := bench-matrix bt-plot crash-sim demo emulate-hdd fio-compare \
		doublewrite-cost fix-journal mkfs-atomic mkfs-journal peer-mariadb profile profile-overhead scan-matrix
SHARE        := $(DESTDIR)$(PREFIX)/share/untorn
MANDIR       := $(DESTDIR)$(PREFIX)/share/man

# their manual pages, made from each one's --help (dev/help2man) so the
# two cannot drift; the concepts' pages are written by hand in man/
SCRIPT_MANS  := $(USER_SCRIPTS:%=$(BUILD)/man/untorn-%.1)
PROG_MANS    := $(BUILD)/man/untorn-jw-write.1 $(if $(HAVE_FUSE3),$(BUILD)/man/untorn-hdd.1)

# the library's pages (section 3): libuntorn.3 and a page per call; the
# other names of a page are symbolic links to it, in man/ and installed:
# man -l follows a link from any directory, where a .so line resolves
# only from the root of an installed manual
LIB_MANS     := $(wildcard man/*.3)
LIB_LINKS    := $(shell find man -maxdepth 1 -name '*.3' -type l)
LIB_PAGES    := $(filter-out $(LIB_LINKS),$(LIB_MANS))

man: $(SCRIPT_MANS) $(PROG_MANS)

$(BUILD)/man/untorn-jw-write.1: $(JWWRITE) dev/help2man
	@mkdir -p $(dir $@)
	dev/help2man untorn-jw-write 1 -- $(JWWRITE) > $@.tmp && mv $@.tmp $@

$(BUILD)/man/untorn-hdd.1: $(HDD) dev/help2man
	@mkdir -p $(dir $@)
	dev/help2man untorn-hdd 1 -- $(HDD) > $@.tmp && mv $@.tmp $@

$(BUILD)/man/untorn-%.1: scripts/% dev/help2man
	@mkdir -p $(dir $@)
	dev/help2man untorn-$* 1 -- scripts/$* > $@.tmp && mv $@.tmp $@

install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/untorn $(SHARE)/scripts/lib $(SHARE)/ebpf \
		$(SHARE)/fio-jobs $(MANDIR)/man1 $(MANDIR)/man3 $(MANDIR)/man5 $(MANDIR)/man7 $(MANDIR)/man8
	install -m 755 $(UNTORN) $(DESTDIR)$(PREFIX)/bin/untorn
	install -m 755 $(FSCHECK) $(DESTDIR)$(PREFIX)/bin/untorn-fscheck
	install -m 755 $(JWWRITE) $(DESTDIR)$(PREFIX)/bin/untorn-jw-write
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libuntorn.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libuntorn.so
	install -m 644 engine/include/untorn.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(PREFIX)/include/untorn/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
		engine/untorn.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/untorn.pc
	$(if $(HAVE_FUSE3),install -m 755 $(HDD) $(DESTDIR)$(PREFIX)/bin/untorn-hdd)
	install -m 755 $(USER_SCRIPTS:%=scripts/%) $(SHARE)/scripts/
	install -m 644 scripts/lib/*.sh scripts/lib/*.py $(SHARE)/scripts/lib/
	install -m 644 VERSION $(SHARE)/
	install -m 644 ebpf/*.bt ebpf/*_example.txt ebpf/PROBES.md ebpf/README.md $(SHARE)/ebpf/
	install -d $(SHARE)/ebpf/old
	install -m 644 ebpf/old/*.bt $(SHARE)/ebpf/old/
	install -m 755 ebpf/pick $(SHARE)/ebpf/
	install -m 644 fio-jobs/*.fio fio-jobs/README.md $(SHARE)/fio-jobs/
	for s in $(USER_SCRIPTS); do \
		ln -sf ../share/untorn/scripts/$$s $(DESTDIR)$(PREFIX)/bin/untorn-$$s; \
	done
	install -m 644 man/untorn.1 $(MANDIR)/man1/
	install -m 644 man/untorn-fscheck.8 $(MANDIR)/man8/
	install -m 644 $(SCRIPT_MANS) $(PROG_MANS) $(MANDIR)/man1/
	install -m 644 $(LIB_PAGES) $(MANDIR)/man3/
	for l in $(LIB_LINKS:man/%=%); do ln -sfn "$$(readlink man/$$l)" $(MANDIR)/man3/$$l; done
	install -m 644 man/untorn-format.5 $(MANDIR)/man5/
	install -m 644 man/untorn-guards.7 $(MANDIR)/man7/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/untorn $(DESTDIR)$(PREFIX)/bin/untorn-fscheck \
		$(DESTDIR)$(PREFIX)/bin/untorn-jw-write \
		$(DESTDIR)$(PREFIX)/lib/libuntorn.* \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/untorn.pc \
		$(DESTDIR)$(PREFIX)/include/untorn.h
	rm -rf $(DESTDIR)$(PREFIX)/include/untorn $(SHARE)
	rm -f $(USER_SCRIPTS:%=$(DESTDIR)$(PREFIX)/bin/untorn-%) $(DESTDIR)$(PREFIX)/bin/untorn-hdd \
		$(MANDIR)/man1/untorn.1 $(MANDIR)/man8/untorn-fscheck.8 \
		$(USER_SCRIPTS:%=$(MANDIR)/man1/untorn-%.1) $(MANDIR)/man5/untorn-format.5 \
		$(MANDIR)/man1/untorn-jw-write.1 $(MANDIR)/man1/untorn-hdd.1 \
		$(MANDIR)/man7/untorn-guards.7 $(LIB_MANS:man/%=$(MANDIR)/man3/%)

clean:
	rm -rf $(BUILD) build-address-undefined build-thread $(FUZZ_BUILD)
	$(MAKE) -C tests clean
