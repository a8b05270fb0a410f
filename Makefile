# pipelm: see README.md.  GNU make.
PREFIX = /usr/local
MANPREFIX = $(PREFIX)/share/man
DATADIR = $(PREFIX)/share/pipelm
CC = cc
CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Werror -pthread
CPPFLAGS = -Ilib -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DPIPELM_DATADIR='"$(DATADIR)"'
LDLIBS = -lm -pthread
# The version lives in lib/base/util.h (PIPELM_VERSION); install stamps it into the pages.
VERSION = $(shell sed -n 's/^\#define PIPELM_VERSION "\(.*\)"$$/\1/p' lib/base/util.h)

# Objects go under $(O), so the plain and the sanitizer build live side by side.
O = build/rel
BINDIR = bin
ifeq ($(SAN),1)
O = build/san
BINDIR = build/san/bin
CFLAGS += -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
# The fuzzing build (make fuzz): clang, the library instrumented for
# libFuzzer's coverage and checked by ASan and UBSan.
ifeq ($(FUZZ),1)
O = build/fuzz
BINDIR = build/fuzz/bin
CC = clang
CFLAGS += -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
# but the SIMD kernels (the *_avx2.c and *_avx512.c files): clang's ASan
# and UBSan take minutes of CPU a file on their intrinsics, the harnesses
# are the parsers', and make test SAN=1 runs every kernel under both
SIMDCFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(CFLAGS))
endif
SIMDCFLAGS ?= $(CFLAGS)
# An O of one's own (make CC=clang O=build/clang) puts the programs
# beside its objects, not over the plain build's bin/
# (nor the sanitizer build's: make test SAN=1 O=build/x).
ifeq ($(origin O),command line)
BINDIR = $(O)/bin
endif
# Static programs (make STATIC=1): the plain build's objects (-static is
# a choice of the link alone) linked -static and stripped into
# build/static/bin, a folder to copy to a machine without a compiler;
# the programs only, no tools.
ifeq ($(STATIC),1)
BINDIR = build/static/bin
LDFLAGS += -static -s
endif
FUZZ_SECONDS = 60

# Per-ISA kernel files are compiled with their own flags (and only those).
AVX2FLAGS = -mavx2 -mfma -mf16c
AVX512FLAGS = -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16 -mfma -mf16c
# VNNI only where its entries are chosen by CPUID (kern_init), so that no
# other AVX-512 code can be compiled into it
$(O)/lib/kern/kern_q4_avx512.o $(O)/pic/lib/kern/kern_q4_avx512.o: AVX512FLAGS += -mavx512vnni
$(O)/lib/kern/kern_i8_avx512.o $(O)/pic/lib/kern/kern_i8_avx512.o: AVX512FLAGS += -mavx512vnni
$(O)/lib/kern/kern_ggml_i8_avx512.o $(O)/pic/lib/kern/kern_ggml_i8_avx512.o: AVX512FLAGS += -mavx512vnni
# AVX-VNNI (vpdpbusd on 256 bits) alike, its entries chosen by CPUID
$(O)/lib/kern/kern_ggml_i8_vnni_avx2.o $(O)/pic/lib/kern/kern_ggml_i8_vnni_avx2.o: AVX2FLAGS += -mavxvnni
$(O)/lib/kern/kern_q4_vnni_avx2.o $(O)/pic/lib/kern/kern_q4_vnni_avx2.o: AVX2FLAGS += -mavxvnni

PROG = $(sort $(basename $(notdir $(wildcard cmd/*.c))))
# Programs that are shell scripts (llm-fetch, over curl): cmd/NAME.sh.
SCRIPT = $(sort $(basename $(notdir $(wildcard cmd/*.sh))))
TOOL = $(sort $(basename $(notdir $(wildcard tools/*.c))))
BIN = $(PROG:%=$(BINDIR)/%) $(SCRIPT:%=$(BINDIR)/%)
TOOLBIN = $(TOOL:%=$(O)/%)
LIBSRC = $(wildcard lib/*/*.c)
HDR = $(wildcard lib/*/*.h)
LIB = $(LIBSRC:%.c=$(O)/%.o)
UNITSRC = $(wildcard tests/unit/test_*.c)
UNIT = $(UNITSRC:tests/unit/%.c=$(O)/%)
FUZZSRC = $(wildcard tests/fuzz/*.c)
FUZZBIN = $(FUZZSRC:tests/fuzz/%.c=build/fuzz/fuzz_%)

# libpipelm.so, the C API (lib/api/pipelm.h): libcore compiled again
# with -fPIC into $(O)/pic, so that the programs stay as they were;
# exporting pipelm_* only (lib/api/pipelm.map).  Not in the sanitizer,
# fuzzing and static builds: tests/unit/test_api runs the API there,
# linked statically.
PIC = $(LIBSRC:%.c=$(O)/pic/%.o)
SO = $(O)/libpipelm.so
ifneq ($(SAN)$(FUZZ)$(filter 1,$(STATIC)),)
SO =
endif
LIBDIR = $(PREFIX)/lib
INCDIR = $(PREFIX)/include

# make (all): the programs (and libpipelm.so); the developers' tools of
# tools/ (mkmodel, mkgguf, ...) are built by the targets that use them
# (test, bench, logerr) or by make tools.
ifeq ($(STATIC),1)
all: $(BIN)
else
all: $(BIN) $(SO)
endif
tools: $(TOOLBIN)

$(O)/libcore.a: $(LIB)
	rm -f $@ && $(AR) rcs $@ $(LIB)
# An object depends on the headers it includes, as the compiler lists
# them (-MMD, into NAME.d beside it); a missing .d remakes the object.
$(PROG:%=$(BINDIR)/%) $(TOOLBIN) $(UNIT): $(HDR)
DEPFLAGS = -MMD -MP
$(O)/lib/%.o: lib/%.c $(O)/lib/%.d
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c -o $@ $<
$(O)/lib/%_avx2.o: lib/%_avx2.c $(O)/lib/%_avx2.d
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(SIMDCFLAGS) $(AVX2FLAGS) -c -o $@ $<
$(O)/lib/%_avx512.o: lib/%_avx512.c $(O)/lib/%_avx512.d
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(SIMDCFLAGS) $(AVX512FLAGS) -c -o $@ $<
$(O)/pic/lib/%.o: lib/%.c $(O)/pic/lib/%.d
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<
$(O)/pic/lib/%_avx2.o: lib/%_avx2.c $(O)/pic/lib/%_avx2.d
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(SIMDCFLAGS) $(AVX2FLAGS) -fPIC -c -o $@ $<
$(O)/pic/lib/%_avx512.o: lib/%_avx512.c $(O)/pic/lib/%_avx512.d
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(SIMDCFLAGS) $(AVX512FLAGS) -fPIC -c -o $@ $<
$(LIB:%.o=%.d) $(PIC:%.o=%.d):
-include $(wildcard $(LIB:%.o=%.d) $(PIC:%.o=%.d))
$(O)/libpipelm.so: $(PIC) lib/api/pipelm.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,--version-script=lib/api/pipelm.map \
	    -Wl,--no-undefined -Wl,-soname,libpipelm.so.1 -o $@ $(PIC) $(LDLIBS)
$(SCRIPT:%=$(BINDIR)/%): $(BINDIR)/%: cmd/%.sh lib/base/util.h
	@mkdir -p $(@D)
	sed 's/@VERSION@/$(VERSION)/' $< > $@.tmp
	chmod +x $@.tmp && mv -f $@.tmp $@
# A program finds the built-in model at BIN/../share/pipelm (lib/disk/mdir.c):
# share/ itself beside bin/, a link to it beside any other BINDIR (one
# target, so that parallel links do not race to make it).  bin/ is told
# by where it is, not how it is spelt: for BINDIR=$PWD/bin, ln -sfn would
# find the folder share/ in the link's place and make share/share.
SHARELINK = $(if $(filter $(CURDIR),$(abspath $(BINDIR)/..)),,$(BINDIR)/../share)
$(SHARELINK):
	@mkdir -p $(BINDIR)
	ln -sfn $(CURDIR)/share $@
$(PROG:%=$(BINDIR)/%): $(BINDIR)/%: cmd/%.c $(O)/libcore.a | $(SHARELINK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libcore.a $(LDLIBS)
$(TOOLBIN): $(O)/%: tools/%.c $(O)/libcore.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libcore.a $(LDLIBS)
$(UNIT): $(O)/%: tests/unit/%.c $(O)/libcore.a $(wildcard tests/unit/*.h)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libcore.a $(LDLIBS)
# The kernel microbenchmark (bench/NOTES.md); built by test so that it
# keeps compiling, run by hand.
$(O)/kernbench: bench/kernbench.c $(O)/libcore.a $(HDR)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libcore.a $(LDLIBS)
kernbench: $(O)/kernbench
# Decode's attention alone at 128 and 4096 positions (bench/NOTES.md).
$(O)/attnbench: bench/attnbench.c $(O)/libcore.a $(HDR)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/libcore.a $(LDLIBS)
attnbench: $(O)/attnbench
# The Oniguruma oracle for lib/tok/regex.c (tests/regex.bats), built only
# where pkg-config finds libonig; never linked into lib/ or the programs.
ONIGLIBS := $(shell pkg-config --libs oniguruma 2>/dev/null)
ifneq ($(ONIGLIBS),)
ONIGCHK = $(O)/regex-onig
endif
$(O)/regex-onig: tests/regex-onig/regex-onig.c tests/regex-onig/pats.h $(O)/libcore.a $(HDR)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(shell pkg-config --cflags oniguruma) $(LDFLAGS) -o $@ $< $(O)/libcore.a $(ONIGLIBS) $(LDLIBS)

# The Python package against the programs (tests/python), on the plain
# build's libpipelm.so; the sanitizer build runs the C API through
# tests/unit/test_api instead.
ifeq ($(SO),)
PYTEST = echo "tests/python: skipped in this build (no libpipelm.so; test_api runs the C API)"
else
PYTEST = if command -v python3 >/dev/null; then \
	echo "tests/python"; PIPELM_BIN=$(CURDIR)/$(BINDIR) PIPELM_TOOLS=$(CURDIR)/$(O) \
	PIPELM_LIB=$(CURDIR)/$(SO) python3 -m unittest discover -s tests/python; \
	else echo "tests/python: skipped: python3 not installed"; fi
endif

# The image first (tests/image.bats; made of the plain objects, after
# this build's, so that no two makes write one object), then the unit
# tests under every kernel table the CPU has (PIPELM_KERNEL), then the
# bats suites against $(BINDIR), then the man-page lint.
#
# TEST_JOBS at a time (the CPUs'): the unit tests as xargs -P runs them
# (each one's output kept in $(O)/NAME.KERNEL.log and shown when it
# fails; the longest, test_model, first), the bats files as bats --jobs
# runs them over GNU parallel (a file's tests in order, as their
# setup_file expects; one file at a time where parallel is missing).
TEST_JOBS = $(shell nproc 2>/dev/null || echo 1)
BATS_JOBS = $(shell command -v parallel >/dev/null 2>&1 && echo $(TEST_JOBS) || echo 1)
BATSFLAGS = $(if $(filter-out 1,$(BATS_JOBS)),--jobs $(BATS_JOBS) --no-parallelize-within-files)
test: all tools $(UNIT) $(O)/kernbench $(O)/attnbench $(ONIGCHK)
	$(MAKE) SAN= FUZZ= image
	@for t in $(filter %/test_model,$(UNIT)) $(filter-out %/test_model,$(UNIT)); do \
		for k in portable avx2 avx512; do echo $$t $$k; done; done | \
	xargs -P $(TEST_JOBS) -n 2 sh -c 'echo "$$0 ($$1)"; PIPELM_KERNEL=$$1 ./$$0 >$$0.$$1.log 2>&1 || \
		{ cat $$0.$$1.log; echo "$$0 ($$1): failed"; exit 255; }'
	PIPELM_BIN=$(CURDIR)/$(BINDIR) PIPELM_TOOLS=$(CURDIR)/$(O) bats $(BATSFLAGS) tests/
	@$(PYTEST)
	groff -mdoc -ww -z man/*.[135]

# The README's test command: everything, plain and under the sanitizers,
# then every fuzzer for CHECK_FUZZ_SECONDS (said and skipped where clang
# cannot link libFuzzer).
# tests/setup first: what is missing installed on Debian (apt-get as root
# or through sudo -n), said, else named (SETUP=0 leaves it out).
CHECK_FUZZ_SECONDS = 5
SETUP = 1
check:
	@if [ "$(SETUP)" != 0 ]; then tests/setup; fi
	$(MAKE) test
	$(MAKE) test SAN=1
	@if tests/fuzz/usable; then $(MAKE) fuzz FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS); \
	else echo "make check: fuzzing skipped: clang cannot link -fsanitize=fuzzer (install clang and libclang-rt-dev)"; fi

# Every libFuzzer harness of tests/fuzz for FUZZ_SECONDS each (needs
# clang and its fuzzer runtime); non-zero on a finding.
fuzz:
	$(MAKE) FUZZ=1 fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS) build/fuzz
fuzz-build: $(FUZZBIN)
$(FUZZBIN): build/fuzz/fuzz_%: tests/fuzz/%.c tests/fuzz/fuzz.h $(O)/libcore.a $(HDR)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(O)/libcore.a $(LDLIBS)

bench: all tools
	@bench/run.sh
# llm-score -P 16 beside -P 1 and xargs -P 2 on short sentences (bench/score.sh)
bench-score: all tools
	@bench/score.sh
# many prompts: a process each (xargs -P 2, GNU parallel) beside one
# llm-gen -P N (bench/parallel.sh)
bench-parallel: all tools
	@bench/parallel.sh
# llm-gen -P N beside llama.cpp's llama-batched-bench (bench/batch.sh)
bench-batch: all tools
	@bench/batch.sh
# GGUF files (llama-quantize's Q4_K_M, Q4_0, Q6_K, Q8_0) beside llama.cpp
# on the same files (bench/gguf.sh; make bench runs it too)
bench-gguf: all tools
	@bench/gguf.sh
# tok-train beside HuggingFace tokenizers' trainer (bench/train.sh; minutes)
bench-train: all
	@bench/train.sh

# llama.cpp's llama-bench, for bench/run.sh to run beside pipelm (network)
peer:
	@bench/peer.sh
# the same llama.cpp built for AVX2 without AVX-512, into build/peer-avx2:
# the peer of BENCH_KERNEL=avx2
peer-avx2:
	@PEER_ISA=avx2 bench/peer.sh
# with AVX-VNNI as well, into build/peer-avxvnni: the peer of the AVX2
# table on a CPU with AVX-VNNI, where that table uses it
peer-avxvnni:
	@PEER_ISA=avxvnni bench/peer.sh

# the 4-bit forms' logit error beside llama.cpp's (bench/logerr.sh)
logerr: all tools
	@bench/logerr.sh

# a GGUF file's logits, pipelm's beside llama.cpp's (bench/ggufkl.sh)
ggufkl: all tools
	@bench/ggufkl.sh

# a 16-bit KV cache's logit error (bench/kverr.sh)
kverr: all tools
	@bench/kverr.sh

# The OCI image archive (make image; docker load / podman load): the
# static programs, the built-in model and the man pages installed into a
# root of their own (build/image/root, PREFIX /usr/local; llm-fetch, a bash
# script, left out), written by tools/mkimage with tar and sha256sum: no
# container engine, no network.  Always of the plain objects.
IMAGE = build/pipelm-image.tar
image: $(IMAGE)
$(IMAGE): $(LIBSRC) $(HDR) $(PROG:%=cmd/%.c) $(PROG:%=man/%.1) man/pipelm-formats.5 tools/mkimage
	$(MAKE) STATIC=1 SAN= FUZZ=
	rm -rf build/image
	$(MAKE) STATIC=1 SAN= FUZZ= PREFIX=/usr/local DESTDIR=$(CURDIR)/build/image/root install
	cd build/image/root/usr/local && rm -f $(SCRIPT:%=bin/%) $(SCRIPT:%=share/man/man1/%.1)
	mkdir -m 1777 build/image/root/tmp
	tools/mkimage build/image/root $@

install: $(BIN) $(SO)
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 $(DESTDIR)$(MANPREFIX)/man5
	cp -f $(BIN) $(DESTDIR)$(PREFIX)/bin/
	if [ -n "$(SO)" ]; then \
	mkdir -p $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCDIR) $(DESTDIR)$(MANPREFIX)/man3 && \
	cp -f $(SO) $(DESTDIR)$(LIBDIR)/libpipelm.so.1 && \
	ln -sf libpipelm.so.1 $(DESTDIR)$(LIBDIR)/libpipelm.so && \
	cp -f lib/api/pipelm.h $(DESTDIR)$(INCDIR)/ && \
	sed 's/^\.Os pipelm$$/.Os pipelm $(VERSION)/' man/pipelm.3 > $(DESTDIR)$(MANPREFIX)/man3/pipelm.3; fi
	for p in $(PROG) $(SCRIPT); do sed 's/^\.Os pipelm$$/.Os pipelm $(VERSION)/' man/$$p.1 > $(DESTDIR)$(MANPREFIX)/man1/$$p.1; done
	cp -f man/pipelm-formats.5 $(DESTDIR)$(MANPREFIX)/man5/
	mkdir -p $(DESTDIR)$(DATADIR)
	cp -Rf share/pipelm/stories260K $(DESTDIR)$(DATADIR)/
uninstall:
	cd $(DESTDIR)$(PREFIX)/bin && rm -f $(PROG) $(SCRIPT)
	cd $(DESTDIR)$(MANPREFIX)/man1 && rm -f $(PROG:=.1) $(SCRIPT:=.1)
	rm -rf $(DESTDIR)$(DATADIR)/stories260K
	-rmdir $(DESTDIR)$(DATADIR)
	rm -f $(DESTDIR)$(MANPREFIX)/man5/pipelm-formats.5
	rm -f $(DESTDIR)$(LIBDIR)/libpipelm.so $(DESTDIR)$(LIBDIR)/libpipelm.so.1
	rm -f $(DESTDIR)$(INCDIR)/pipelm.h $(DESTDIR)$(MANPREFIX)/man3/pipelm.3
clean:
	rm -rf bin build/rel build/san build/fuzz build/static build/image $(IMAGE)
.PHONY: all tools test check fuzz fuzz-build bench bench-batch bench-gguf bench-parallel bench-score bench-train peer peer-avx2 peer-avxvnni logerr ggufkl kverr kernbench attnbench image install uninstall clean
