# ptrace_profiler - see README.md.  `make`, `make check`, `make demo`.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

CC      ?= cc
# The libraries, by their pkg-config names: scripts/install-deps.sh keeps
# the one list of them and of the Debian packages that provide them.
PKGS    := $(shell sh scripts/install-deps.sh --pkgs build)
TEST_PKGS := $(shell sh scripts/install-deps.sh --pkgs test)
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wformat=2
ALL_CFLAGS = -std=gnu11 -pthread $(WARN) -Iinclude -I$(B)/gen $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(CFLAGS)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread
CMOCKA_CFLAGS := $(shell pkg-config --cflags $(TEST_PKGS) 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs $(TEST_PKGS) 2>/dev/null)

B := build
# src/ holds a folder per stage of the pipeline (docs/how-it-works.md),
# include/ the same folders; an object keeps its source's folder.
SRCS     := $(wildcard src/*.c src/*/*.c)
LIB_OBJS := $(patsubst src/%.c,$(B)/%.o,$(filter-out src/cli/main.c,$(SRCS)))
HDRS     := $(wildcard include/*.h include/*/*.h)

UNIT_SRCS  := $(wildcard test/unit/test_*.c)
UNIT_BINS  := $(patsubst test/unit/%.c,$(B)/test/%,$(UNIT_SRCS))
# Programs the integration tests profile (late_lib.c is a library of them;
# which.c is built twice, as which_a and which_b, below).
TARGET_SRCS := $(filter-out test/targets/late_lib.c test/targets/which.c,$(wildcard test/targets/*.c))
TARGET_CXX_SRCS := $(wildcard test/targets/*.cpp)
TARGET_BINS := $(patsubst test/targets/%.c,$(B)/test/targets/%,$(TARGET_SRCS)) \
	$(patsubst test/targets/%.cpp,$(B)/test/targets/%,$(TARGET_CXX_SRCS)) \
	$(B)/test/targets/liblate.so $(B)/test/targets/split_dynsym $(B)/test/targets/fake_pg13 \
	$(B)/test/targets/fake_pg_nover \
	$(B)/test/targets/which_a $(B)/test/targets/which_b $(B)/test/targets/split_static \
	$(B)/test/targets/cpp_lambdas_ool
DEMO_BIN := $(B)/demo/workload

.PHONY: all deps build-deps test-deps check check-deps check-run check-programs test-programs truth unit integration fuzz demo bench install uninstall clean pg-layout
all: ptrace_profiler

# Before the compiler runs, what it needs: a missing library is one line
# naming its Debian package and 'make deps', not a compiler error about a
# header.  (make's own $(error): the recipe's text is expanded, and the
# script run, only when something is about to be compiled.)
build-deps:
	@$(if $(shell sh scripts/install-deps.sh --missing build),$(error $(shell sh scripts/install-deps.sh --missing build)))
test-deps:
	@$(if $(shell sh scripts/install-deps.sh --missing test),$(error $(shell sh scripts/install-deps.sh --missing test)))

ptrace_profiler: $(LIB_OBJS) $(B)/cli/main.o
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/%.o: src/%.c $(HDRS) | build-deps $(B)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# x86-64's system calls by number, from the build's own kernel headers
# (name/syscall.h): a generated table, never edited by hand.
$(B)/gen/syscall_names.h: | build-deps $(B)
	@mkdir -p $(dir $@)
	printf '#include <asm/unistd_64.h>\n' | $(CC) -dM -E - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/\t[\2] = "\1",/p' >$@.tmp
	@test -s $@.tmp || { echo "no system call numbers in <asm/unistd_64.h>" >&2; exit 1; }
	mv $@.tmp $@
$(B)/name/syscall.o $(B)/san/name/syscall.o: $(B)/gen/syscall_names.h

# The report's page (output/out_html.c): src/output/report.html as one C
# string, generated; the page is edited as HTML.
$(B)/gen/report_page.h: src/output/report.html | $(B)
	@mkdir -p $(dir $@)
	{ printf 'static const char report_page[] =\n'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; printf ';\n'; } >$@.tmp
	mv $@.tmp $@
$(B)/output/out_html.o $(B)/san/output/out_html.o: $(B)/gen/report_page.h

$(B) $(B)/test $(B)/test/targets $(B)/demo $(B)/bench:
	@mkdir -p $@

# --- tests ---------------------------------------------------------------
# A library no test links, for tests that load one late (by absolute path).
# Its twin is the same code with its function named spare_twinfunc: the
# same size and layout, other bytes (file identity tests).  Both built with
# a -D of the same length (gcc records its options in the debug info), the
# name too: the same size wherever the checkout lies.
SPARE_LIB := $(B)/test/libspare.so
SPARE_TWIN := $(B)/test/libspare_twin.so
UNIT_DEFS := -DSPARE_LIB='"$(CURDIR)/$(SPARE_LIB)"' -DSPARE_TWIN='"$(CURDIR)/$(SPARE_TWIN)"' \
	-DTRACES_DIR='"$(CURDIR)/test/unit/traces"'
$(SPARE_LIB): test/unit/spare_lib.c | $(B)/test
	$(CC) -O1 -g -fPIC -shared -Dspare_function=spare_function -o $@ $<
$(SPARE_TWIN): test/unit/spare_lib.c | $(B)/test
	$(CC) -O1 -g -fPIC -shared -Dspare_function=spare_twinfunc -o $@ $<
# A test may stand in for the layer under the code it tests: the calls the
# library's objects make to NAME go to the test's own __wrap_NAME (ld's
# --wrap), for every __wrap_ function the test defines.  The production
# code keeps its direct calls; test_capture.c runs capture.c against a
# fake target this way.
comma := ,
unit_wraps = $(addprefix -Wl$(comma)--wrap=,$(patsubst __wrap_%,%,$(sort $(shell grep -o '__wrap_[A-Za-z0-9_]*' $(1)))))
$(B)/test/%: test/unit/%.c $(wildcard test/unit/*.h) $(LIB_OBJS) $(HDRS) | test-deps $(B)/test $(SPARE_LIB) $(SPARE_TWIN)
	$(CC) $(ALL_CFLAGS) $(UNIT_DEFS) $(CMOCKA_CFLAGS) -o $@ $< $(call unit_wraps,$<) $(LIB_OBJS) $(LDLIBS) $(CMOCKA_LIBS)

# Writes any format from a hand-made profile, for 70-formats.sh and the
# size/time table in docs/formats.md; reads a pprof file back (read-pprof).
FORMATS_TOOL := $(B)/test/write_formats
$(FORMATS_TOOL): test/tools/write_formats.c test/unit/profile_fixture.h test/unit/pprof_read.h $(LIB_OBJS) $(HDRS) | $(B)/test
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

# Reads PostgreSQL processes' type, state and statement through the db
# layer alone (no sampler, no ptrace), for 80-postgres.sh and its cost.
PG_STATUS_TOOL := $(B)/test/pg_status
$(PG_STATUS_TOOL): test/tools/pg_status.c $(LIB_OBJS) $(HDRS) | $(B)/test
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS)

# Checks what the db layer assumes of PostgreSQL's memory (pgbackend.h's
# offsets, pgactivity.c's enum numbers) against a server's own headers:
# one binary per major whose headers are installed (Debian's
# postgresql-server-dev-N), run by make pg-layout and 81-pg-layout.sh.
# The server's side is compiled apart: its headers and ours never meet.
PG_SERVER_INCS := $(wildcard /usr/include/postgresql/*/server)
PG_LAYOUT_BINS := $(patsubst /usr/include/postgresql/%/server,$(B)/test/pg_layout-%,$(PG_SERVER_INCS))
$(B)/test/pg_layout-%: test/tools/pg_layout.c test/tools/pg_layout_server.c test/tools/pg_layout.h $(LIB_OBJS) $(HDRS) | $(B)/test
	$(CC) -std=gnu11 -O0 -g -Wall -I/usr/include/postgresql/$*/server -c -o $@-server.o test/tools/pg_layout_server.c
	$(CC) $(ALL_CFLAGS) -o $@ test/tools/pg_layout.c $@-server.o $(LIB_OBJS) $(LDLIBS)
pg-layout: $(PG_LAYOUT_BINS)
	@$(if $(PG_LAYOUT_BINS),,echo "pg-layout: no PostgreSQL server headers under /usr/include/postgresql/*/server (apt-get install postgresql-server-dev-15)"; exit 1)
	@for t in $(PG_LAYOUT_BINS); do echo "== $$t"; $$t || exit 1; done

# Targets are built the way the programs they stand for are: optimized,
# with symbols.  Per-target flags below.
TARGET_CFLAGS := -O1 -g -Wall -Wextra -fno-inline -fno-optimize-sibling-calls
$(B)/test/targets/recursion: TARGET_CFLAGS := -O2 -g -fomit-frame-pointer -fno-inline -fno-optimize-sibling-calls
$(B)/test/targets/jit_nofp: TARGET_CFLAGS += -fomit-frame-pointer
$(B)/test/targets/many_maps: TARGET_CFLAGS += -fno-omit-frame-pointer
$(B)/test/targets/%: test/targets/%.c test/targets/own_truth.h | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -o $@ $< -pthread -lm
$(B)/test/targets/%: test/targets/%.cpp | $(B)/test/targets
	$(CXX) -O2 -g -Wall -Wextra -o $@ $<
# cpp_lambdas with every lambda out of line: the symbol table's names
$(B)/test/targets/cpp_lambdas_ool: test/targets/cpp_lambdas.cpp | $(B)/test/targets
	$(CXX) -O2 -g -Wall -Wextra -DOUT_OF_LINE -o $@ $<
$(B)/test/targets/liblate.so: test/targets/late_lib.c | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -fPIC -shared -o $@ $<
# lld_gap: linked by lld with 2 MiB pages, its segments 2 MiB apart, all at
# file offset 0.  Without ld.lld it is not built and its test skips.
LLD := $(shell command -v ld.lld 2>/dev/null)
ifeq ($(LLD),)
TARGET_BINS := $(filter-out $(B)/test/targets/lld_gap,$(TARGET_BINS))
endif
$(B)/test/targets/lld_gap: test/targets/lld_gap.c | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -fuse-ld=lld -Wl,-z,max-page-size=0x200000 -o $@ $<
# PostgreSQL stand-ins: postgres exports its globals (my_wait_event_info);
# the same program as a 13 server has no such symbol; without its version
# text, it is known by its working directory's PG_VERSION.
$(B)/test/targets/fake_pg: TARGET_CFLAGS += -rdynamic
$(B)/test/targets/fake_pg13: test/targets/fake_pg.c | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -DPG13 -o $@ $< -pthread -lm
$(B)/test/targets/fake_pg_nover: test/targets/fake_pg.c | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -rdynamic -DNO_VERSION_TEXT -o $@ $< -pthread -lm
# which.c twice: the same code under two names (work_a, work_b).
$(B)/test/targets/which_%: test/targets/which.c | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -DWORK=work_$* -o $@ $<
# vforker: no unwind tables, frame pointers: only a stop unwinds it.
$(B)/test/targets/vforker: TARGET_CFLAGS += -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-omit-frame-pointer
# split linked statically: gcc then writes no .eh_frame_hdr, only .eh_frame.
$(B)/test/targets/split_static: test/targets/split.c | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -static -o $@ $<
# split with every function in .dynsym: a stripped copy still names them.
$(B)/test/targets/split_dynsym: test/targets/split.c | $(B)/test/targets
	$(CC) $(TARGET_CFLAGS) -rdynamic -o $@ $<

# The same code and tests under AddressSanitizer and UndefinedBehaviorSanitizer.
S := $(B)/san
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_LIB_OBJS := $(patsubst $(B)/%,$(S)/%,$(LIB_OBJS))
SAN_UNIT_BINS := $(patsubst $(B)/test/%,$(S)/test/%,$(UNIT_BINS))

$(S)/%.o: src/%.c $(HDRS) | build-deps $(S)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c -o $@ $<
$(S)/ptrace_profiler: $(SAN_LIB_OBJS) $(S)/cli/main.o
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LDLIBS)
$(S)/test/%: test/unit/%.c $(wildcard test/unit/*.h) $(SAN_LIB_OBJS) $(HDRS) | test-deps $(S)/test $(SPARE_LIB) $(SPARE_TWIN)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(UNIT_DEFS) $(CMOCKA_CFLAGS) -o $@ $< $(call unit_wraps,$<) $(SAN_LIB_OBJS) $(LDLIBS) $(CMOCKA_LIBS)
$(S) $(S)/test:
	@mkdir -p $@

# --- fuzzing (libFuzzer, Debian's clang) ----------------------------------
# make fuzz runs each target for FUZZ_SECONDS on the seeds in
# test/fuzz/corpus/TARGET/; an input that crashes is left in build/fuzz/ and
# belongs in that corpus directory, where make check replays it for ever.
FUZZ_TARGETS := $(patsubst test/fuzz/%.c,%,$(wildcard test/fuzz/fuzz_*.c))
# Every library source: the parsers under test reach the format table,
# which names its writers.
FUZZ_SRCS := $(filter-out src/cli/main.c,$(SRCS))
FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang
F := $(B)/fuzz
$(F)/fuzz_%: test/fuzz/fuzz_%.c $(FUZZ_SRCS) $(HDRS) $(B)/gen/syscall_names.h $(B)/gen/report_page.h | $(F)
	$(FUZZ_CC) -std=gnu11 -g -O1 -Iinclude -I$(B)/gen $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
		-fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_SRCS) $(LDLIBS)
$(F):
	mkdir -p $@

fuzz: $(addprefix $(F)/,$(FUZZ_TARGETS))
	@status=0; for t in $(FUZZ_TARGETS); do \
		name=$${t#fuzz_}; mkdir -p $(F)/corpus-$$name; \
		echo "== $$t, $(FUZZ_SECONDS) s"; \
		$(F)/$$t -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(F)/crash-$$name- \
			$(F)/corpus-$$name test/fuzz/corpus/$$name >$(F)/$$t.log 2>&1 \
			&& tail -n 1 $(F)/$$t.log \
			|| { status=1; grep -E 'ERROR|SUMMARY|written to' $(F)/$$t.log; \
			     echo "   keep it: copy that file into test/fuzz/corpus/$$name/"; }; \
	done; exit $$status

# make check replays every corpus input through the fuzz targets (ASan+UBSan).
REGRESS_BINS := $(patsubst %,$(S)/test/regress_%,$(FUZZ_TARGETS))
$(S)/test/regress_%: test/fuzz/%.c test/fuzz/regress.c $(SAN_LIB_OBJS) $(HDRS) | $(S)/test
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $< test/fuzz/regress.c $(SAN_LIB_OBJS) $(LDLIBS)

unit: $(UNIT_BINS)
	@sh test/run-unit.sh $(UNIT_BINS)

# What the integration tests run, built without running them (then one
# file: ONLY=NN-name bash test/integration.sh).
test-programs: ptrace_profiler $(TARGET_BINS) $(FORMATS_TOOL) $(PG_STATUS_TOOL) $(PG_LAYOUT_BINS)
# Everything make check runs, both builds.
check-programs: test-programs $(UNIT_BINS) $(S)/ptrace_profiler $(SAN_UNIT_BINS) $(REGRESS_BINS)

integration: test-programs
	@bash test/integration.sh

deps:
	@sh scripts/install-deps.sh
# make check's first step: what the build and the unit tests need, and
# what the integration tests use (PostgreSQL, Chromium, tmux...: installed
# as root, else the command printed and their tests skipped).
check-deps:
	@sh scripts/install-deps.sh check

# The build of make check on every CPU: the plain and sanitizer builds
# took 70 s of CI's 25 minutes one at a time.
CHECK_JOBS := $(shell nproc 2>/dev/null || echo 2)

# make check is what CI runs (.ci/run is nothing but make check): the
# plain build's unit and integration tests, timing bounds included (a
# bound a correct build meets on a busy 2-CPU machine, or tried again:
# test/integration/lib.sh); then the sanitizer build's unit tests, corpus
# replays and the integration tests' functional assertions (no assertion
# on time there).  test/check.sh runs them all and ends with every failure
# again.  The promised figures are make truth's.  (A sub-make builds what
# check-deps may just have made possible: a server's headers, lld.)
check: check-deps
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-programs
	@$(MAKE) --no-print-directory check-run
check-run:
	@UNIT_BINS="$(UNIT_BINS)" SAN_UNIT_BINS="$(SAN_UNIT_BINS)" SAN_PP=$(S)/ptrace_profiler \
		REGRESS="$(foreach t,$(FUZZ_TARGETS),$(S)/test/regress_$(t):test/fuzz/corpus/$(t:fuzz_%=%))" \
		bash test/check.sh

# The promised figures (docs/testing.md): the timing tests alone, with the
# tolerances the docs promise, each figure printed against its truth; one
# try each.  Not part of CI: run it before a change to sampling, decisions
# or cost is called done.
truth: test-programs
	@TRUTH=1 bash test/integration.sh

$(DEMO_BIN): demo/workload.c | $(B)/demo
	$(CC) -O1 -g -fno-inline -o $@ $< -pthread

demo: deps
	@$(MAKE) --no-print-directory ptrace_profiler $(DEMO_BIN)
	@sh demo/run-demo.sh

# --- benchmark (bench/run.sh says what it measures) ----------------------
# (the target that measures its own freezes is a test target too)
BENCH_BINS := $(B)/test/targets/freeze_target $(B)/test/targets/sysmix $(B)/bench/bare_loop \
	$(B)/bench/wake_floor
$(B)/bench/%: bench/%.c | $(B)/bench
	$(CC) -O2 -g -Wall -Wextra -o $@ $<

bench: ptrace_profiler $(BENCH_BINS)
	@bash bench/run.sh
	@bash bench/cost_table.sh
	@bash bench/dump_freeze.sh
	@bash bench/top_cost.sh
	@bash bench/pgbench.sh
	@bash bench/thread_server.sh

install: ptrace_profiler
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 ptrace_profiler $(DESTDIR)$(BINDIR)/ptrace_profiler
	install -m 0644 man/ptrace_profiler.1 $(DESTDIR)$(MANDIR)/man1/ptrace_profiler.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ptrace_profiler $(DESTDIR)$(MANDIR)/man1/ptrace_profiler.1

clean:
	rm -rf $(B) ptrace_profiler demo.folded demo.svg
