# tailcause - find out why a latency test has a tail.
#
#   make            build build/tailcause (BPF objects, skeletons, user space)
#   make run        install what building and running need, build, record a short run and
#                   print the report (root)
#   make test       install what testing needs too, build, run unit tests and system tests
#   make check      what needs no root and installs nothing, in seconds: the unit tests,
#                   the golden renderer tests, the layer, docs and format checks;
#                   T=PATTERN runs only the tests whose name has PATTERN (make check T=spike)
#   make golden     rewrite tests/golden/ from the fixture traces (after an intended change)
#   make lint       the layer check, the format check and cppcheck (CI runs it)
#   make bench      install what the benchmarks need too, build, run the benchmarks in bench/
#   make lab        attribution accuracy lab: inject known causes, score the report (root)
#   make test-vm    the verbs tests on soft-RoCE in a qemu VM (scripts/vmlab; root)
#   make test-kernels  the kernel matrix: this host's kernel and Debian's 5.10, 6.1, 6.12
#                   in the VM (root; TC=FILE tests that binary, KERNELS="5.10" fewer)
#   make bench-parity  tailcause's verbs probe vs perftest's ib_write_lat, in the VM
#   make vmlinux    regenerate vmlinux/<arch>/vmlinux.h from this kernel's BTF
#   make man        the man pages, $(O)/man/tailcause.8 and tailcause-COMMAND.8 (section 8)
#   make completion the bash and zsh completion, $(O)/completion/tailcause and _tailcause
#   make install    install the binary under $(PREFIX)/bin (PREFIX=/usr/local), the man pages
#                   and the completion under $(PREFIX)/share
#   make fmt        clang-format the sources (make check-fmt: fail where they are not)
#   V=1 shows full commands; O=DIR builds elsewhere; WERROR=0 drops -Werror.

O ?= build
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
WERROR ?= 1

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' \
	-e 's/s390x/s390/' -e 's/riscv64/riscv/' -e 's/loongarch64/loongarch/')

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-5s %s\n' "$(1)" "$(2)";
MAKEFLAGS += --no-print-directory
endif

PKGS := libbpf libelf zlib libdeflate libzstd libibverbs libsodium
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

WARN := -Wall -Wextra -Wshadow -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer
endif
CFLAGS ?= -O2 -g
CFLAGS += $(WARN) -std=gnu11 -D_GNU_SOURCE -MMD -MP $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
# Includes name their layer ("core/trace/trace.h", "bpf/events.h"). lib/ and core/ build without
# any package's headers: libc only (core: zlib, libdeflate, zstd); scripts/check-layers.sh checks.
PURE_CFLAGS := $(CFLAGS) -Iuser -I.
USER_CFLAGS := $(CFLAGS) $(PKG_CFLAGS) -I$(O) -Iuser -I.
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) \
	-Ibpf -MMD -MP

# The layers, lowest first (docs/hacking.md, "Layers"): lib <- core <- {probe, tracefile, audit} <-
# {record, report} <- cmd <- tailcause.c.
LIB_SRCS := $(wildcard user/lib/*.c)
CORE_SRCS := $(wildcard user/core/*/*.c)
CORE_HDRS := $(wildcard user/core/*/*.h)
USER_SRCS := $(wildcard user/probe/*.c user/tracefile/*.c user/audit/*.c user/record/*.c \
	user/record/bpf/*.c user/report/*.c user/cmd/*.c user/*.c)
BPF_SRCS := $(wildcard bpf/*.bpf.c)
TEST_SRCS := $(wildcard tests/test_*.c)

LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
CORE_OBJS := $(CORE_SRCS:%.c=$(O)/%.o)
USER_OBJS := $(USER_SRCS:%.c=$(O)/%.o)
BPF_OBJS := $(BPF_SRCS:%.c=$(O)/%.o)
SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(O)/bpf/%.skel.h)
TESTS := $(TEST_SRCS:tests/%.c=$(O)/tests/%)
AUDIT_OBJS := $(patsubst %.c,$(O)/%.o,$(wildcard user/audit/*.c)) $(O)/user/report/audit_print.o \
	$(O)/user/report/report_common.o
LIB_LIB := $(O)/libtclib.a
CORE_LIB := $(O)/libtccore.a
BIN := $(O)/tailcause

.PHONY: fuzz all run test check unit-test system-test bench vmlinux install fmt check-fmt clean \
	deps deps-test deps-bench check-layers check-symbols cppcheck lint golden test-vm \
	test-kernels bench-parity lab man completion mpi-tools
.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS) $(SKELS)

all: $(BIN)

# What each kind of work installs (scripts/deps.sh): running needs no test or benchmark tool.
deps:
	$(Q)sh scripts/deps.sh run
deps-test:
	$(Q)sh scripts/deps.sh test
deps-bench:
	$(Q)sh scripts/deps.sh bench

# --- BPF: clang -> bpftool gen object -> bpftool gen skeleton -------------------
$(O)/bpf/%.bpf.o: bpf/%.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -MT $@ -c $< -o $(@:.o=.tmp.o)
	$(Q)$(BPFTOOL) gen object $@ $(@:.o=.tmp.o)
	$(Q)rm -f $(@:.o=.tmp.o)

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@

# --- user space -----------------------------------------------------------------
$(O)/user/core/%.o: user/core/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PURE_CFLAGS) -c $< -o $@

$(O)/user/lib/%.o: user/lib/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PURE_CFLAGS) -c $< -o $@

# What the build is made of (tailcause --version, every trace's tailcause.version): rewritten
# only when it changes, so only version.o follows.
$(O)/gen/build_info.h: FORCE
	$(Q)sh scripts/build-info.sh $@ "$(CLANG)" "$(PKG_CONFIG)" "$(CC)"

$(O)/user/lib/version.o: user/lib/version.c $(O)/gen/build_info.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PURE_CFLAGS) -include $(O)/gen/build_info.h -c $< -o $@

FORCE:

$(O)/user/%.o: user/%.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@

$(CORE_LIB): $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(USER_OBJS) $(CORE_LIB) $(LIB_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $(USER_OBJS) $(CORE_LIB) $(LIB_LIB) $(PKG_LIBS) -lpthread -lm -o $@

# --- tests ------------------------------------------------------------------------
$(O)/tests/%: tests/%.c $(CORE_LIB) $(LIB_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PURE_CFLAGS) $(CMOCKA_CFLAGS) $< $(CORE_LIB) $(LIB_LIB) $(LDFLAGS) \
		$(CMOCKA_LIBS) -ldeflate -lzstd -lz -lm -o $@

# test_audit_{irq,host,nic} run the checks of user/audit on fixture trees and print them: they
# link them, the audit's renderer (report/audit_print.o, report_common.o) and libibverbs (test_audit_join tests
# core/ only and takes the rule above).
AUDIT_TESTS := $(addprefix $(O)/tests/,test_audit_irq test_audit_host test_audit_nic)
$(AUDIT_TESTS): $(O)/tests/%: tests/%.c $(AUDIT_OBJS) $(CORE_LIB) $(LIB_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(CMOCKA_CFLAGS) $< $(AUDIT_OBJS) $(CORE_LIB) $(LIB_LIB) \
		$(LDFLAGS) $(CMOCKA_LIBS) $(PKG_LIBS) -lm -o $@

# test_path_counters samples fixture sysfs trees with the recorder's path counters: it links
# them and the probe layer (its clock and CPU pinning; libibverbs with it).
PATH_COUNTER_OBJS := $(O)/user/record/path_counters.o \
	$(patsubst %.c,$(O)/%.o,$(wildcard user/probe/*.c))
$(O)/tests/test_path_counters: tests/test_path_counters.c $(PATH_COUNTER_OBJS) $(CORE_LIB) $(LIB_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(CMOCKA_CFLAGS) $< $(PATH_COUNTER_OBJS) $(CORE_LIB) $(LIB_LIB) \
		$(LDFLAGS) $(CMOCKA_LIBS) $(PKG_LIBS) -lpthread -lm -o $@

# test_link runs both ends of the two-host link (the handshake, the trace sent over it): it
# links the probe layer, the recorder's trace exchange and the trace file layer.
LINK_TEST_OBJS := $(O)/user/record/peer_trace.o $(patsubst %.c,$(O)/%.o,$(wildcard user/probe/*.c)) \
	$(patsubst %.c,$(O)/%.o,$(wildcard user/tracefile/*.c))
$(O)/tests/test_link: tests/test_link.c $(LINK_TEST_OBJS) $(CORE_LIB) $(LIB_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(CMOCKA_CFLAGS) $< $(LINK_TEST_OBJS) $(CORE_LIB) $(LIB_LIB) \
		$(LDFLAGS) $(CMOCKA_LIBS) $(PKG_LIBS) -lpthread -lm -o $@

# test_trace_file and test_trace_stream test the trace file layer (user/tracefile): they link
# its objects, and log through their own log_err() (the one of lib/ is not linked in; its
# str.o is, for core's escaping).
TRACE_FILE_OBJS := $(patsubst %.c,$(O)/%.o,$(wildcard user/tracefile/*.c))
TRACE_FILE_TESTS := $(addprefix $(O)/tests/,test_trace_file test_trace_stream)
$(TRACE_FILE_TESTS): $(O)/tests/%: tests/%.c tests/trace_file_fixture.h $(TRACE_FILE_OBJS) $(CORE_LIB) \
		$(O)/user/lib/str.o
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PURE_CFLAGS) $(CMOCKA_CFLAGS) $< $(TRACE_FILE_OBJS) $(CORE_LIB) \
		$(O)/user/lib/str.o $(LDFLAGS) $(CMOCKA_LIBS) -ldeflate -lzstd -lz -lm -o $@

# test_report_escape renders a hostile trace in every format: it links the report layer and
# the trace file layer below it.
REPORT_OBJS := $(patsubst %.c,$(O)/%.o,$(wildcard user/report/*.c)) $(TRACE_FILE_OBJS)
$(O)/tests/test_report_escape: tests/test_report_escape.c tests/analyze_fixture.h $(REPORT_OBJS) \
		$(CORE_LIB) $(LIB_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(CMOCKA_CFLAGS) $< $(REPORT_OBJS) $(CORE_LIB) $(LIB_LIB) \
		$(LDFLAGS) $(CMOCKA_LIBS) -ldeflate -lzstd -lz -lm -o $@

# test_report_plan checks how a report reads its trace (report/report_plan.c, pure): it links
# that object alone.
$(O)/tests/test_report_plan: tests/test_report_plan.c $(O)/user/report/report_plan.o
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(USER_CFLAGS) $(CMOCKA_CFLAGS) $< $(O)/user/report/report_plan.o $(LDFLAGS) \
		$(CMOCKA_LIBS) -o $@

# libFuzzer campaigns on the trace reader, the JSON reader and the streamed analysis
# (clang + Debian's libclang-rt dev package). Undefined behaviour stops a run as a crash
# does; the fuzz builds skip the blocks' CRC check (the convention's macro), so that
# mutated payloads reach the decoders behind it.
FUZZ_RUNS ?= 10000000
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-std=gnu11 -D_GNU_SOURCE -Iuser -I. -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
$(O)/fuzz/fuzz_trace: tests/fuzz/fuzz_trace.c $(CORE_SRCS) $(LIB_SRCS) $(CORE_HDRS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) tests/fuzz/fuzz_trace.c $(CORE_SRCS) $(LIB_SRCS) -ldeflate -lzstd -lz -lm \
		-o $@

$(O)/fuzz/fuzz_json: tests/fuzz/fuzz_json.c $(CORE_SRCS) $(LIB_SRCS) $(CORE_HDRS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) tests/fuzz/fuzz_json.c $(CORE_SRCS) $(LIB_SRCS) -ldeflate -lzstd -lz -lm \
		-o $@

$(O)/fuzz/fuzz_stream: tests/fuzz/fuzz_stream.c tests/mem_source.h $(CORE_SRCS) $(LIB_SRCS) $(CORE_HDRS)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) tests/fuzz/fuzz_stream.c $(CORE_SRCS) $(LIB_SRCS) -ldeflate -lzstd -lz -lm \
		-o $@

# The link: both sides of the handshake and of the trace exchange, with the trace reader
# behind the client (and libsodium; lib/log.c left out: the target says nothing).
LINK_FUZZ_SRCS := tests/fuzz/fuzz_link.c user/probe/link.c user/probe/link_auth.c \
	user/record/peer_trace.c $(wildcard user/tracefile/*.c) $(CORE_SRCS) \
	$(filter-out user/lib/log.c,$(LIB_SRCS))
$(O)/fuzz/fuzz_link: $(LINK_FUZZ_SRCS) $(CORE_HDRS) $(wildcard user/probe/*.h user/record/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_FLAGS) $(LINK_FUZZ_SRCS) -lsodium -ldeflate -lzstd -lz -lm -o $@

fuzz: $(O)/fuzz/fuzz_trace $(O)/fuzz/fuzz_json $(O)/fuzz/fuzz_stream $(O)/fuzz/fuzz_link
	$(Q)sh tests/fuzz/run.sh $(O) $(FUZZ_RUNS)

check-layers:
	$(Q)sh scripts/check-layers.sh

# No two files of core call each other; every export of core has its module's prefix.
check-symbols: $(CORE_LIB)
	$(Q)sh scripts/check-symbols.sh $(O)

# Every C source and header of ours (vmlinux.h is generated, not ours).
FMT_FILES := $(LIB_SRCS) $(CORE_SRCS) $(CORE_HDRS) $(USER_SRCS) $(BPF_SRCS) $(TEST_SRCS) \
	$(wildcard user/*/*.h user/record/bpf/*.h bpf/*.h tests/*.h tests/system/*.c tests/fuzz/*.c \
	bench/*.c bench/lab/*.c)

fmt:
	$(Q)clang-format -i $(FMT_FILES)

check-fmt:
	$(Q)clang-format --dry-run -Werror $(FMT_FILES) 2>&1 | grep -m 20 'error:' | \
		sed 's/^/tailcause: not clang-format clean (make fmt): /' | grep . >&2 && exit 1 || exit 0

cppcheck:
	$(Q)cppcheck --enable=warning,portability --std=c11 -D_GNU_SOURCE -Iuser -I. -I$(O) \
		--quiet --error-exitcode=1 -j2 user tests/*.c bench/*.c

lint: check-layers check-symbols check-fmt cppcheck

# make check: no dependency installation, no root; T=PATTERN for some tests only.
check: all $(TESTS)
	$(Q)sh tests/run.sh --check $(O) $(T)
	$(Q)$(MAKE) check-layers check-symbols check-fmt

unit-test: $(TESTS)
	$(Q)sh tests/run.sh --unit $(O) $(T)

golden: all
	$(Q)sh tests/test_golden.sh $(O) --update

system-test: $(BIN)

# Small programs that cause host events on purpose for the system tests.
TEST_TOOLS := $(O)/tests/tc-spin $(O)/tests/tc-ipi $(O)/tests/tc-bench $(O)/tests/tc-faults \
	$(O)/tests/tc-storm $(O)/tests/tc-sigprobe $(O)/tests/tc-timers $(O)/tests/tc-waitpair
$(O)/tests/tc-%: tests/system/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $< -lpthread -o $@

# --- MPI: the collective records' library, preloaded into the ranks (record --iter mpi) ----
# Built with the MPI compiler wrapper where one is installed (make test installs Open MPI's).
MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPI_LIB := $(O)/mpi/libtailcause-mpi.so
$(MPI_LIB): mpi/tcmpi.c mpi/coll.h
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) -O2 -g -fPIC -shared $(WARN) -std=gnu11 -D_GNU_SOURCE -Impi $< -o $@
$(O)/tests/tc-mpiloop: tests/system/mpiloop.c
	$(call msg,MPICC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(MPICC) -O2 $(WARN) -std=gnu11 $< -o $@
ifneq ($(MPICC),)
all: $(MPI_LIB)
endif
# The MPI test tools, named by the make that runs after deps-test installed Open MPI: a
# variable the first make computed would still say there is no mpicc.
mpi-tools: $(if $(MPICC),$(MPI_LIB) $(O)/tests/tc-mpiloop)

# The per-event benchmark's context-switch storm, also a test's: the off-CPU records' overrun.
$(O)/tests/tc-storm: bench/storm.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $< -lpthread -o $@

test: deps-test
	$(Q)$(MAKE) all $(TESTS) $(TEST_TOOLS) mpi-tools
	$(Q)sh tests/run.sh $(O)

# One VM boot runs every verbs check (tests/system/test_vm.sh); make test runs it too.
test-vm: deps-test
	$(Q)$(MAKE) all $(O)/tests/tc-spin
	$(Q)sh tests/run.sh $(O) test_vm

# tests/system/kernels.sh: one VM boot per kernel (docs/kernels.md); TC= the binary
# under test (default $(BIN)), KERNELS= the VM kernels, VMLAB_SUITE= the guest userland.
KERNELS ?= 5.10 6.1 6.12
test-kernels: deps
	$(Q)$(MAKE) all
	$(Q)TC_BIN="$(or $(TC),$(BIN))" TC_KERNELS="$(KERNELS)" sh tests/system/kernels.sh $(O)

RUN_ARGS ?= -n 5M
run: deps
	$(Q)$(MAKE) all
	$(Q)$(BIN) run $(RUN_ARGS)

bench: deps-bench
	$(Q)$(MAKE) all $(TEST_TOOLS) mpi-tools
	$(Q)sh bench/run.sh $(O)

# Attribution accuracy lab (bench/lab/README.md): injectors + scoring, <= 10 min.
LAB_ARGS ?=
LAB_INJECT_SRCS := $(wildcard bench/lab/inject*.c)
$(O)/bench/lab/tc-lab-inject: $(LAB_INJECT_SRCS) bench/lab/inject.h tests/system/tools.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Itests/system $(LAB_INJECT_SRCS) -o $@

lab: deps-bench
	$(Q)$(MAKE) all $(O)/bench/lab/tc-lab-inject $(O)/tests/tc-waitpair
	$(Q)python3 bench/lab/lab.py $(O) $(LAB_ARGS)

PARITY_ARGS ?=
bench-parity: deps-bench
	$(Q)$(MAKE) all
	$(Q)sh bench/parity.sh $(O) $(PARITY_ARGS)

vmlinux:
	$(Q)sh scripts/gen-vmlinux.sh $(ARCH)

# The man pages and the completion, from the binary's option tables and --help texts
# (scripts/gen-man.py; tests/test_man.sh checks that they name every option).
man: $(O)/man/tailcause.8
completion: $(O)/completion/tailcause

$(O)/man/tailcause.8: $(BIN) scripts/gen-man.py
	$(call msg,GEN,$(@D))
	$(Q)python3 scripts/gen-man.py man $(BIN) $(@D)

$(O)/completion/tailcause: $(BIN) scripts/gen-man.py
	$(call msg,GEN,$(@D))
	$(Q)python3 scripts/gen-man.py completion $(BIN) $(@D)

SHARE := $(DESTDIR)$(PREFIX)/share
install: $(BIN) man completion
	$(call msg,INST,$(DESTDIR)$(PREFIX)/bin/tailcause)
	$(Q)install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tailcause
	$(Q)if [ -f $(MPI_LIB) ]; then install -D -m 0644 $(MPI_LIB) \
		$(DESTDIR)$(PREFIX)/lib/tailcause/libtailcause-mpi.so; fi
	$(call msg,INST,$(SHARE)/man/man8)
	$(Q)install -d $(SHARE)/man/man8
	$(Q)install -m 0644 $(O)/man/*.8 $(SHARE)/man/man8/
	$(call msg,INST,$(SHARE)/bash-completion/completions/tailcause)
	$(Q)install -D -m 0644 $(O)/completion/tailcause $(SHARE)/bash-completion/completions/tailcause
	$(call msg,INST,$(SHARE)/zsh/vendor-completions/_tailcause)
	$(Q)install -D -m 0644 $(O)/completion/_tailcause $(SHARE)/zsh/vendor-completions/_tailcause

clean:
	$(call msg,CLEAN,$(O))
	$(Q)rm -rf $(O)

-include $(LIB_OBJS:.o=.d) $(CORE_OBJS:.o=.d) $(USER_OBJS:.o=.d) $(BPF_OBJS:.o=.d) $(TESTS:=.d)
