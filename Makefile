# ksnoop: trace kernel functions, tracepoints and USDT probes with BTF.
#
#   make            build build/ksnoop
#   make demo       install what is missing, build, trace something live
#   make check      install what is missing, run every test
#   make bench      measure against bcc's ksnoop and bpftrace (docs/PERFORMANCE.md)
#   make fuzz       run the fuzzers for longer than make check does
#   make test-bins  build what the unit, live and VM tests run (tests/mutate)
#   make golden     rewrite every golden file (on purpose only; root, this kernel)
#   make install    PREFIX=/usr/local DESTDIR= (make uninstall: the same files removed)
#   make deb        the Debian package, built in a clean copy (scripts/make-deb)
#   make ARCH=arm64 cross-build build-arm64/ksnoop for aarch64
#   make vm-arm64   cross-build it with the arm64 VM's test programs and run
#                   tests/vm/arm64.list in Debian's arm64 kernel under qemu

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
HOST_ARCH  := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH       ?= $(HOST_ARCH)
ifeq ($(ARCH),$(HOST_ARCH))
BUILD      ?= build
else
BUILD      ?= build-$(ARCH)
endif
CC         ?= gcc
CLANG      ?= clang
BPFTOOL    ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
MULTIARCH  := $(shell $(CC) -print-multiarch 2>/dev/null)
# The BPF side's <asm/...> headers: the host's, or the cross target's.
BPF_ASM_INC = /usr/include/$(MULTIARCH)

# libbpf: the one place its version is pinned.  Built from Debian trixie's
# source package (scripts/build-libbpf, through the private apt
# configuration in $(BUILD)/apt) and linked statically; the BPF side uses
# its headers too.  libelf and zlib are Debian bookworm's static archives.
LIBBPF_VERSION := 1.5.0
LIBBPF_DIR := $(BUILD)/libbpf-$(LIBBPF_VERSION)
LIBBPF_A   := $(LIBBPF_DIR)/lib/libbpf.a
APT_DIR    := $(BUILD)/apt
# libbpf's unpacked source, if given, is built instead of fetching it (the
# Debian package's orig-libbpf component: debian/README.source).
LIBBPF_SRC ?=

CFLAGS     ?= -O2 -g
WARNINGS   := -Wall -Wextra -Werror -Wno-unused-parameter
CPPFLAGS   += -Iinclude -I$(BUILD) $(SRC_INC) -DKSNOOP_VERSION='"$(VERSION)"' -D_GNU_SOURCE
PKG_CFLAGS := -isystem $(LIBBPF_DIR)/include
# Static archives for libbpf's own dependencies, and libdw (elfutils, the
# version of libelf) for DWARF (ksnoop/dwarf/): only its core, not libdwfl,
# so neither liblzma nor libbz2 is pulled in (nm: only libdwfl's objects
# ask for them).  build/ksnoop is linked
# fully static; the sanitizer builds (which cannot be) link libc and the
# sanitizer runtimes dynamically.
# libzstd (Debian's libzstd-dev): record files' blocks (ksnoop/record/);
# zlib still reads version-2 files.
# libiberty (binutils' and gcc's, Debian's libiberty-dev): its C++
# demangler only (ksnoop/ufunc/demangle.c), a static archive of plain C,
# no C++ runtime.  DEMANGLE=0 builds without it (names are shown mangled).
DEMANGLE   ?= 1
DEMANGLE_LIB := $(if $(filter 1,$(DEMANGLE)),-liberty)
CPPFLAGS   += $(if $(filter 1,$(DEMANGLE)),-DKSNOOP_HAVE_DEMANGLE)
# libpcap (Debian's libpcap0.8-dev, static libpcap.a): --filter's
# pcap_compile() alone (ksnoop/spec/pfilter.c).  Its D-Bus module would
# need libdbus, of which Debian has no static archive: pcap_nodbus.c
# defines the module's two entry points so the archive's is never linked.
# glibc warns that getaddrinfo() and friends, which libpcap's name lookups
# call, need its shared NSS modules at run time: true, and only for host
# names in a filter (addresses need nothing); the link filters that noise.
PCAP_LIB   := -lpcap
LINK_NOISE := statically linked applications requires\|libpcap\.a([a-z0-9_-]*\.o): in function
PKG_LIBS   := $(LIBBPF_A) -Wl,-Bstatic -ldw -lelf -lz -lzstd $(PCAP_LIB) $(DEMANGLE_LIB) -Wl,-Bdynamic

# Another architecture: make ARCH=arm64 on x86-64 cross-builds with Debian's
# aarch64-linux-gnu-gcc into build-arm64/, linking bookworm's arm64 libelf.a
# and libz.a (scripts/arm64-sysroot: apt-get download through a private apt
# configuration, never the system's) and libbpf built from the same trixie
# source as the host's.  Below this block every rule is the same for both.
CROSS_SYSROOT :=
ifneq ($(ARCH),$(HOST_ARCH))
ifneq ($(ARCH),arm64)
$(error ARCH=$(ARCH): ksnoop cross-builds for arm64 only (see bpf/arch.bpf.h))
endif
ifneq ($(origin CC),command line)
CC         := aarch64-linux-gnu-gcc
endif
CROSS_APT_DIR := $(BUILD)/apt-bookworm-arm64
CROSS_SYSROOT := $(BUILD)/sysroot
CROSS_STAMP   := $(CROSS_SYSROOT)/.unpacked
BPF_ASM_INC   := /usr/aarch64-linux-gnu/include
CPPFLAGS      += -isystem $(CROSS_SYSROOT)/usr/include
LDFLAGS       += -L$(CROSS_SYSROOT)/usr/lib/aarch64-linux-gnu
# <sys/sdt.h> for the test programs, whose rules take no CPPFLAGS.
export C_INCLUDE_PATH := $(abspath $(CROSS_SYSROOT))/usr/include/aarch64-linux-gnu
LIBBPF_ENV    := LIBBPF_CC=$(CC)
LIBBPF_EXTRA  := -isystem $(abspath $(CROSS_SYSROOT))/usr/include
.DEFAULT_GOAL := all
$(CROSS_STAMP): scripts/arm64-sysroot scripts/trixie-apt
	@scripts/arm64-sysroot $(CROSS_APT_DIR) $(CROSS_SYSROOT)
	@touch -c $@
endif

# Position independent (-static-pie: ELF type DYN without an interpreter,
# loaded at a random address) where the compiler can link it so: a root
# tool that parses hostile input gets ASLR.  gcc 12 with Debian's static
# libelf and zlib: 82 KB more (stripped), start-up within noise (s50).
# This asks only whether the compiler knows -static-pie; our objects and
# libbpf's (whose static objects get no -fPIC of their own: PIE only where
# the compiler makes PIE by default) are built -fPIE then, and the link
# of ksnoop itself decides (libelf.a and libz.a are the system's).
STATIC_PIE := $(shell printf 'int main(void){return 0;}' | \
	$(CC) -x c -fPIE -static-pie - -o /dev/null 2>/dev/null && echo -static-pie)
LIBBPF_EXTRA += $(if $(STATIC_PIE),-fPIE)
LIBBPF_ENV += LIBBPF_CFLAGS="$(strip $(LIBBPF_EXTRA))"

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) \
	      -isystem $(LIBBPF_DIR)/include -I$(BPF_ASM_INC) -Iinclude $(WARNINGS)

# Userspace, one file per responsibility, one folder per layer (see
# docs/ARCHITECTURE.md): basenames are unique, so objects stay flat in
# $(BUILD) and every folder is on the include path (#include "print.h").
# USDT locations are the architecture's (usdt_x86.c, usdt_arm64.c);
# aarch64's is built on every host, for its unit tests.
SRC_DIRS   := $(patsubst %/,%,$(sort $(dir $(wildcard ksnoop/*/*.c))))
SRC_INC    := $(addprefix -I,$(SRC_DIRS))
vpath %.c $(SRC_DIRS)
USDT_ARCH_SRC := usdt_arm64.c $(filter-out usdt_arm64.c,usdt_$(ARCH).c)
CORE_SRCS  := log.c ks_error.c spec.c syscall.c kbtf.c ksyms.c signature.c \
	      resolve.c print.c escape.c obuf.c writer.c report.c report_text.c report_json.c report_perfetto.c \
	      suggest.c btf_util.c duration.c kfeatures.c \
	      resolve_chain.c resolve_value.c resolve_pred.c resolve_strategy.c resolve_sharing.c \
	      resolve_tuple.c resolve_netns.c tuple.c pcapng.c pcap_events.c kernel.c klookup.c usdt_note.c $(USDT_ARCH_SRC) usdt_specs.c \
	      usdt_front.c ufunc.c demangle.c counts.c hist.c usym.c usym_elf.c usym_cache.c \
	      targets.c sharing.c sysnr.c stop.c stdout_lines.c tree.c tree_print.c group_print.c cmd_complete.c track.c recfile.c rec_query.c rec_merge.c \
	      dwarf_btf.c pfilter.c pfilter_ebpf.c pcap_nodbus.c container.c prune.c klayout.c
APP_SRCS   := main.c cmd_info.c cmd_trace.c attach.c units.c btf_lend.c prune_hook.c ringbuf_ahead.c cmd_record.c cmd_report.c printing.c
CORE_OBJS  := $(CORE_SRCS:%.c=$(BUILD)/%.o)
APP_OBJS   := $(APP_SRCS:%.c=$(BUILD)/%.o)
HDRS       := $(wildcard ksnoop/*/*.h include/*.h)

UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=all

.PHONY: all deps demo check unit golden live vm vm-arm64 arm64-test-bins fuzz bench install uninstall deb clean test-bins check-bins
.DELETE_ON_ERROR:

all: $(BUILD)/ksnoop

deps:
	@scripts/install-deps
	$(if $(CROSS_SYSROOT),@scripts/arm64-sysroot $(CROSS_APT_DIR) $(CROSS_SYSROOT))
	@$(LIBBPF_ENV) scripts/build-libbpf $(LIBBPF_VERSION) $(APT_DIR) $(LIBBPF_DIR)

# build-libbpf leaves a library already built alone: touched, it is not
# asked again at every make after one of the scripts changed.
$(LIBBPF_A): scripts/build-libbpf scripts/trixie-apt $(CROSS_STAMP)
	@$(LIBBPF_ENV) scripts/build-libbpf $(LIBBPF_VERSION) $(APT_DIR) $(LIBBPF_DIR) $(LIBBPF_SRC)
	@touch -c $@

$(BUILD) $(BUILD)/san:
	@mkdir -p $@

$(BUILD)/ksnoop.bpf.o: bpf/ksnoop.bpf.c $(wildcard bpf/*.bpf.h) include/ksnoop.h \
		       include/ksnoop_usdt.h include/ksnoop_tuple_key.h include/ksnoop_cbpf.h $(LIBBPF_A) scripts/bpf-stack-check | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	@scripts/bpf-stack-check $@

# What the skeleton embeds: the object without what only tools read.
$(BUILD)/ksnoop.min.bpf.o: $(BUILD)/ksnoop.bpf.o scripts/bpf-skel-object
	scripts/bpf-skel-object $< $@

$(BUILD)/ksnoop.skel.h: $(BUILD)/ksnoop.min.bpf.o
	$(BPFTOOL) gen skeleton $< name ksnoop_bpf > $@

$(BUILD)/klookup.bpf.o: bpf/klookup.bpf.c include/ksnoop.h $(LIBBPF_A) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/klookup.skel.h: $(BUILD)/klookup.bpf.o
	$(BPFTOOL) gen skeleton $< name klookup_bpf > $@

$(BUILD)/ksymscan.bpf.o: bpf/ksymscan.bpf.c include/ksnoop.h $(LIBBPF_A) | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/ksymscan.skel.h: $(BUILD)/ksymscan.bpf.o
	$(BPFTOOL) gen skeleton $< name ksymscan_bpf > $@

# Capture units (include/ksnoop.h, KSNOOP_UNIT_*): the object again with
# one unit's programs alone, what an instance opens (ksnoop/attach/units.c)
# through the skeleton above; laid out as the whole object (bpf-unit-check).
UNITS      := fentry fsession kprobe ksession tp usdt uprobe usession syscall
UNIT_SKELS := $(UNITS:%=$(BUILD)/unit_%.skel.h)
.SECONDARY: $(UNITS:%=$(BUILD)/unit_%.bpf.o) $(UNITS:%=$(BUILD)/unit_%.min.bpf.o)

$(BUILD)/unit_%.bpf.o: bpf/ksnoop.bpf.c $(BUILD)/ksnoop.bpf.o scripts/bpf-unit-check
	$(CLANG) $(BPF_CFLAGS) -Wno-unused-function -DKSNOOP_UNIT=KSNOOP_UNIT_$$(echo $* | tr a-z A-Z) -c $< -o $@
	@scripts/bpf-stack-check $@
	@scripts/bpf-unit-check $(BUILD)/ksnoop.bpf.o $@

$(BUILD)/unit_%.min.bpf.o: $(BUILD)/unit_%.bpf.o scripts/bpf-skel-object
	scripts/bpf-skel-object $< $@

$(BUILD)/unit_%.skel.h: $(BUILD)/unit_%.min.bpf.o
	$(BPFTOOL) gen skeleton $< name ksnoop_unit_$* > $@

SKELS      := $(BUILD)/ksnoop.skel.h $(BUILD)/klookup.skel.h $(BUILD)/ksymscan.skel.h $(UNIT_SKELS)

# bench/lskel.c: the kprobe pair loaded through libbpf against a light
# skeleton of the same source (docs/PERFORMANCE.md, "Light skeleton").
$(BUILD)/bench/ksnoop_kprobe.bpf.o: bpf/ksnoop.bpf.c $(BUILD)/ksnoop.bpf.o
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -DKSNOOP_KPROBES_ONLY -c $< -o $@

$(BUILD)/bench/ksnoop_kprobe.lskel.h: $(BUILD)/bench/ksnoop_kprobe.bpf.o
	$(BPFTOOL) gen skeleton -L $< name ksnoop_kprobe > $@

$(BUILD)/bench/ksb-lskel: bench/lskel.c $(BUILD)/bench/ksnoop_kprobe.lskel.h $(BUILD)/ksnoop.skel.h $(LIBBPF_A)
	$(CC) $(CFLAGS) -Iinclude -I$(BUILD) -I$(BUILD)/bench $(PKG_CFLAGS) $(WARNINGS) $< $(LIBBPF_A) -lelf -lz -static -o $@

# The build architecture's system call numbers by name (sysnr.c): every
# __NR_ macro its <asm/unistd.h> defines, through the compiler that builds
# ksnoop (arm64's table when cross-building).
$(BUILD)/sysnr_names.h: Makefile | $(BUILD)
	printf '#include <asm/unistd.h>\n' | $(CC) $(CPPFLAGS) -E -dM -x c - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) .*/SYSNR(\1)/p' | \
		grep -v -e '^SYSNR(syscalls)$$' -e '^SYSNR(arch_specific_syscall)$$' | sort > $@

$(BUILD)/sysnr.o $(BUILD)/san/sysnr.o: $(BUILD)/sysnr_names.h

# Header dependencies are generated (-MMD -MP): an object is rebuilt when a
# header it includes changes, and only then.  The skeleton must exist
# before the first compile (attach.c and klookup.c include them).
DEPFLAGS   := -MMD -MP

$(BUILD)/%.o: %.c | $(BUILD) $(SKELS)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(if $(STATIC_PIE),-fPIE) $(WARNINGS) $(DEPFLAGS) -c $< -o $@

# One self-contained binary: no shared object at all at run time,
# static-pie where it links (STATIC_PIE above).  The real link is the
# test: an archive member that is not position independent (a toolchain
# without default PIE) fails it, and then ksnoop is linked -static, said
# in one line, the failed link's messages kept in ksnoop.static-pie.log.
# libbpf's vmlinux BTF calls go through ksnoop/attach/btf_lend.c (one
# parse of vmlinux BTF a run: see there).
LEND_WRAP  := -Wl,--wrap=btf__load_vmlinux_btf,--wrap=btf__free
KSNOOP_LINK = $(CC) $(CFLAGS) $(LDFLAGS) -pthread $(CORE_OBJS) $(APP_OBJS) $(LIBBPF_A) -ldw -lelf -lz -lzstd \
	      $(PCAP_LIB) $(DEMANGLE_LIB) $(LEND_WRAP) -o $@
# KSNOOP_LINK with $(1), its LINK_NOISE filtered out of what it says, its status kept.
quiet_link = $(KSNOOP_LINK) $(1) 2>$@.link.log; st=$$?; sed '/$(LINK_NOISE)/d' $@.link.log >&2; rm -f $@.link.log; exit $$st
$(BUILD)/ksnoop: $(CORE_OBJS) $(APP_OBJS) $(LIBBPF_A)
ifneq ($(STATIC_PIE),)
	@rm -f $@.static-pie.log
	$(KSNOOP_LINK) -static-pie 2>$@.static-pie.log || { \
	  echo "ksnoop: -static-pie does not link here (see $@.static-pie.log): linking -static, no ASLR" >&2; \
	  $(call quiet_link,-static); }
	@sed -i '/$(LINK_NOISE)/d' $@.static-pie.log
	@[ -s $@.static-pie.log ] || rm -f $@.static-pie.log
else
	$(call quiet_link,-static)
endif

# The same binary under AddressSanitizer and UBSan, for the live tests.
$(BUILD)/san/%.o: %.c | $(BUILD)/san $(SKELS)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -O1 -g $(SAN_FLAGS) $(WARNINGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/san/ksnoop: $(CORE_SRCS:%.c=$(BUILD)/san/%.o) \
		     $(APP_SRCS:%.c=$(BUILD)/san/%.o) $(LIBBPF_A)
	$(CC) $(SAN_FLAGS) -pthread $(filter %.o,$^) $(PKG_LIBS) $(LEND_WRAP) -o $@

# The unit tests' and fuzzers' BTF, written in C (tests/fixture/types.h;
# info.h: functions and tracepoints for the golden outputs of info):
# gcc's DWARF encoded by pahole, as the kernel's BTF is made, so that the
# offsets are the compiler's.  Tests load it from FIXTURE_FLAGS' path.
FIXTURE_BTF   := $(BUILD)/fixture/types.btf $(BUILD)/fixture/kernel.btf $(BUILD)/fixture/info.btf
FIXTURE_FLAGS := -DKSNOOP_FIXTURE_DIR='"$(abspath $(BUILD)/fixture)"'
$(FIXTURE_BTF): $(BUILD)/fixture/%.btf: tests/fixture/%.c tests/fixture/%.h
	@mkdir -p $(@D)
	$(CC) -g -O0 -c $< -o $(@D)/$*.o
	pahole -J --btf_gen_all $(@D)/$*.o
	objcopy --dump-section .BTF=$@ $(@D)/$*.o

# Unit tests: no privileges, sanitizers on, cmocka.
TEST_HDRS  := $(wildcard tests/include/*.h tests/fixture/*.h)
$(BUILD)/san/%: tests/unit/%.c $(CORE_SRCS:%.c=$(BUILD)/san/%.o) $(HDRS) $(TEST_HDRS) $(LIBBPF_A) \
		$(FIXTURE_BTF)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FIXTURE_FLAGS) -O1 -g $(SAN_FLAGS) $(WARNINGS) \
		$< $(CORE_SRCS:%.c=$(BUILD)/san/%.o) $(PKG_LIBS) -lcmocka -o $@

UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/san/%)

# The DWARF converter's test programs (tests/unit/test_dwarf.c): types.c
# by gcc and clang at -O0 and -O2, DWARF 5 (both compilers' default) and
# DWARF 4; each with the BTF pahole makes of the same binary (.btf), which
# the test compares with the converter's.  types.cc: C++ by g++ and clang++.
UPROG_DIR   := $(BUILD)/uprog
UPROG_C     := $(foreach c,gcc clang,$(foreach o,O0 O2,$(foreach v,5 4,$(UPROG_DIR)/types-$(c)-$(o)-dwarf$(v))))
UPROG_CC    := $(foreach c,g++ clang++,$(foreach o,O0 O2,$(UPROG_DIR)/typescc-$(c)-$(o)))
UPROG_BINS  := $(UPROG_C) $(UPROG_CC) $(UPROG_C:%=%.btf) $(UPROG_DIR)/types-gcc-O0-gz
uprog_cc     = $(word 2,$(subst -, ,$(notdir $(1))))
uprog_opt    = $(word 3,$(subst -, ,$(notdir $(1))))
$(UPROG_C): tests/uprog/types.c | $(BUILD)
	@mkdir -p $(@D)
	$(call uprog_cc,$@) -g$(subst dwarf,dwarf-,$(word 4,$(subst -, ,$(notdir $@)))) \
		-$(call uprog_opt,$@) -Wall -Wextra -Werror $< -o $@
$(UPROG_C:%=%.btf): %.btf: %
	pahole -J --btf_gen_all --btf_encode_detached=$@ $<
# Compressed debug sections (SHF_COMPRESSED), for the inflate limit.
$(UPROG_DIR)/types-gcc-O0-gz: tests/uprog/types.c | $(BUILD)
	@mkdir -p $(@D)
	gcc -g -gz -O0 $< -o $@
$(UPROG_CC): tests/uprog/types.cc | $(BUILD)
	@mkdir -p $(@D)
	$(call uprog_cc,$@) -g -$(call uprog_opt,$@) -Wall -Wextra -Werror $< -o $@
$(BUILD)/san/test_dwarf: $(UPROG_BINS)
$(BUILD)/san/test_ufunc: $(BUILD)/uprog/uvars
FIXTURE_FLAGS += -DKSNOOP_UPROG_DIR='"$(abspath $(UPROG_DIR))"' \
		 -DKSNOOP_FUZZ_REGRESSIONS='"$(abspath tests/fuzz/regressions)"'

# USDT test programs: probes from <sys/sdt.h>, BTF added from DWARF; frame
# pointers, so that the kernel can walk their user stacks (-s).
USDT_BINS := $(BUILD)/usdt/usdt_prog $(BUILD)/usdt/libksnoop_usdt.so $(BUILD)/usdt/usdt_edge \
	     $(BUILD)/usdt/usdt_forms $(BUILD)/usdt/usdt_libonly
$(BUILD)/usdt/libksnoop_usdt.so: tests/usdt/usdt_lib.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O1 -g -shared -fPIC $< -o $@
$(BUILD)/usdt/usdt_prog: tests/usdt/usdt_prog.c tests/usdt/usdt_guarded.c $(BUILD)/usdt/libksnoop_usdt.so
	$(CC) -O1 -g -fno-omit-frame-pointer tests/usdt/usdt_prog.c tests/usdt/usdt_guarded.c \
		-L$(@D) -lksnoop_usdt -Wl,-rpath,'$$ORIGIN' -pthread -o $@
	pahole -J $@

$(BUILD)/usdt/usdt_edge: tests/usdt/usdt_edge.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O1 -g $< -o $@

# A hostile traced process for -s (fakes its frame-pointer chain: no frame
# pointers of its own), and a FUSE server that stops answering.
USDT_BINS += $(BUILD)/usdt/usdt_hostile $(BUILD)/usdt/fuse_stall
$(BUILD)/usdt/usdt_hostile: tests/usdt/usdt_hostile.c tests/usdt/hostile_elf.h | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARNINGS) $< -o $@
$(BUILD)/usdt/fuse_stall: tests/usdt/fuse_stall.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARNINGS) $< -o $@

# System calls for live/32-syscalls.sh: openat (failing, succeeding), connect.
USDT_BINS += $(BUILD)/usdt/syscall_prog
$(BUILD)/usdt/syscall_prog: tests/usdt/syscall_prog.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARNINGS) $< -o $@

# A known user stack at openat for --ustack: frame pointers, no inlining
# or sibling calls, a frame in leaf functions too, so that the kernel's walk sees every frame.
USDT_BINS += $(BUILD)/usdt/ustack_prog
$(BUILD)/usdt/ustack_prog: tests/usdt/ustack_prog.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls \
		-fno-inline $(WARNINGS) $< -o $@

# -O2: the notes of structs passed by value in registers ("16@%rax");
# usdt_forms_dup.c: a second static of one name.
$(BUILD)/usdt/usdt_forms: tests/usdt/usdt_forms.c tests/usdt/usdt_forms_dup.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O2 -g $^ -o $@

# One probe per kind of location the compiler picks (register, stack frame,
# constant) and a semaphore; the arm64 VM's USDT test (90-arm64.sh).
USDT_BINS += $(BUILD)/usdt/usdt_sites
$(BUILD)/usdt/usdt_sites: tests/usdt/usdt_sites.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARNINGS) $< -o $@

$(BUILD)/usdt/usdt_libonly: tests/usdt/usdt_libonly.c $(BUILD)/usdt/libksnoop_usdt.so
	$(CC) -O1 -g $< -L$(@D) -lksnoop_usdt -Wl,-rpath,'$$ORIGIN' -o $@

# The capture program run by BPF_PROG_TEST_RUN (live/47-prog-test-run.sh):
# the skeleton and the shared header only, under the sanitizers.
LIVE_BINS := $(BUILD)/live/prog_test_run
$(BUILD)/live/prog_test_run: tests/live/prog_test_run.c include/ksnoop.h $(BUILD)/ksnoop.skel.h $(LIBBPF_A)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) -O1 -g $(SAN_FLAGS) $(WARNINGS) $< $(PKG_LIBS) -o $@

# User functions traced as u:BINARY:FUNC (live/46-ufunc.sh): one program,
# built by gcc and clang at -O0 and -O2, each build a copy to trace.
UPROG_BINS := $(foreach cc,gcc clang,$(foreach o,O0 O2,$(BUILD)/uprog/app-$(cc)-$(o)))
$(BUILD)/uprog/app-%: tests/uprog/app.c | $(BUILD)
	@mkdir -p $(@D)
	$(word 1,$(subst -, ,$*)) -$(word 2,$(subst -, ,$*)) -g -fno-omit-frame-pointer $(WARNINGS) \
		-pthread $< -o $@

# Globals and thread-locals read at a user function (live/46-ufunc-vars.sh):
# one program by gcc and clang at -O0 and -O2, PIE and not.
UPROG_BINS += $(foreach cc,gcc clang,$(foreach o,O0 O2,$(foreach p,pie nopie,$(BUILD)/uprog/vars-$(cc)-$(o)-$(p))))
$(BUILD)/uprog/vars-%: tests/uprog/vars.c | $(BUILD)
	@mkdir -p $(@D)
	$(word 1,$(subst -, ,$*)) -$(word 2,$(subst -, ,$*)) -g $(WARNINGS) \
		$(if $(filter nopie,$(word 3,$(subst -, ,$*))),-fno-pie -no-pie,-fPIE -pie) -pthread $< -o $@
# Variables read at a USDT probe (live/42-usdt-vars.sh): PIE executables by
# gcc and clang and the shared library they load (its own probe and global),
# found beside them ($$ORIGIN).
UPROG_BINS += $(BUILD)/uprog/libusdtvars.so $(BUILD)/uprog/usdtvars-gcc-O2 $(BUILD)/uprog/usdtvars-clang-O0
$(BUILD)/uprog/libusdtvars.so: tests/uprog/usdtvars.c | $(BUILD)
	@mkdir -p $(@D)
	gcc -O2 -g $(WARNINGS) -fPIC -shared -DUSDTVARS_LIB $< -o $@
$(BUILD)/uprog/usdtvars-%: tests/uprog/usdtvars.c $(BUILD)/uprog/libusdtvars.so | $(BUILD)
	@mkdir -p $(@D)
	$(word 1,$(subst -, ,$*)) -$(word 2,$(subst -, ,$*)) -g $(WARNINGS) -fPIE -pie -pthread \
		$< -L$(BUILD)/uprog -lusdtvars -Wl,-rpath,'$$ORIGIN' -o $@
# test_complete offers @NAME from this one's debug info (`make unit`
# alone, as the Debian package's build runs it, must build it first).
$(BUILD)/san/test_complete: $(BUILD)/uprog/vars-gcc-O0-pie $(BUILD)/uprog/usdtvars-gcc-O2

# C++ user functions by their demangled names (live/46-ufunc.sh): one
# program, built by g++ and clang++ at -O0 and -O2.
UPROG_BINS += $(foreach cc,g++ clang++,$(foreach o,O0 O2,$(BUILD)/uprog/appcc-$(cc)-$(o)))
$(BUILD)/uprog/appcc-%: tests/uprog/app.cc | $(BUILD)
	@mkdir -p $(@D)
	$(word 1,$(subst -, ,$*)) -$(word 2,$(subst -, ,$*)) -g $(WARNINGS) $< -o $@

# A glob over 1,000 functions of one file (live/46-ufunc.sh, the attach
# and detach times of uprobe.multi against a uprobe each): mf_0000 ..
# mf_0999, generated; `many N` calls each N times.
UPROG_BINS += $(BUILD)/uprog/many
$(BUILD)/uprog/many.c: Makefile | $(BUILD)
	@mkdir -p $(@D)
	@awk 'BEGIN { \
		print "#include <stdio.h>"; print "#include <stdlib.h>"; \
		for (i = 0; i < 1000; i++) \
			printf "__attribute__((noinline)) long mf_%04d(long x) { return x + %d; }\n", i, i; \
		print "static long (*const mf_all[])(long) = {"; \
		for (i = 0; i < 1000; i++) printf "\tmf_%04d,\n", i; \
		print "};"; \
		print "int main(int argc, char **argv)"; print "{"; \
		print "\tlong n = argc > 1 ? strtol(argv[1], NULL, 10) : 1, sum = 0;"; \
		print "\tfor (long r = 0; r < n; r++)"; \
		print "\t\tfor (unsigned i = 0; i < sizeof(mf_all) / sizeof(mf_all[0]); i++)"; \
		print "\t\t\tsum += mf_all[i](r);"; \
		print "\tprintf(\"%ld\\n\", sum);"; print "\treturn 0;"; print "}" }' > $@
$(BUILD)/uprog/many: $(BUILD)/uprog/many.c
	$(CC) -O1 -g $(WARNINGS) $< -o $@

# Workloads for the VM tests: static, so the VM needs no libraries for them.
VM_BINS := $(BUILD)/vm/vmprog
$(BUILD)/vm/vmprog: tests/vm/vmprog.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARNINGS) -static -pthread $< -o $@

# cases.sh's waits, blocked in the kernel (tests/lib/kswait.c): natively
# and in the guests, so static.
VM_BINS += $(BUILD)/vm/kswait
$(BUILD)/vm/kswait: tests/lib/kswait.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARNINGS) -static $< -o $@

# The verifier asked whether kprobe-type programs get a private stack:
# what -v must say about uprobe programs (live/46-ufunc-session.sh and,
# in the x86-64 guests, vm/91-ufunc-session.sh); static, for both.
VM_BINS += $(BUILD)/vm/priv_stack
$(BUILD)/vm/priv_stack: tests/vm/priv_stack.c $(LIBBPF_A) | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(PKG_CFLAGS) -O1 -g $(WARNINGS) -static $< $(LIBBPF_A) -lelf -lz -lzstd -o $@

# A user function's globals and thread-locals in the VMs, arm64's TLS
# (variant I) among them (vm/91-uvars.sh): vars.c by the target's
# compiler, static (the guest's libc is another build's).
VM_BINS += $(BUILD)/uprog/uvars
$(BUILD)/uprog/uvars: tests/uprog/vars.c | $(BUILD)
	@mkdir -p $(@D)
	$(CC) -O0 -g $(WARNINGS) -static -pthread $< -o $@

# Fuzzing (libFuzzer): targets and rules live in tests/fuzz/fuzz.mk.  It is
# included before `check` so that FUZZ_BINS is set when check's
# prerequisites are read.
FUZZ_BINS :=
-include tests/fuzz/fuzz.mk
-include $(wildcard $(BUILD)/*.d $(BUILD)/san/*.d $(BUILD)/fuzz/*.d)

# deps first, then the build: with -j the two must not overlap (libbpf is
# built with packages deps installs).
demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo $(BUILD)/ksnoop

# What unit, live and VM tests run (tests/mutate builds these); check adds the fuzzers.
# A cross build's test programs need the sysroot's <sys/sdt.h>.
$(USDT_BINS) $(VM_BINS): $(CROSS_STAMP)
TEST_BINS  := $(BUILD)/ksnoop $(BUILD)/san/ksnoop $(UNIT_BINS) $(USDT_BINS) $(VM_BINS) $(LIVE_BINS) \
	      $(UPROG_BINS)
test-bins: $(TEST_BINS)

CHECK_BINS := $(TEST_BINS) $(FUZZ_BINS)
# The arm64 build for the arm64 VM (tests/run --only vm-arm64): its own
# build tree, libbpf and apt configuration, whatever this make was given.
ARM64_BUILD := $(BUILD)-arm64
ARM64_MAKE  = $(MAKE) --no-print-directory ARCH=arm64 BUILD=$(ARM64_BUILD) \
	      LIBBPF_DIR=$(ARM64_BUILD)/libbpf-$(LIBBPF_VERSION) APT_DIR=$(APT_DIR)
ARM64_TEST_BINS = $(addprefix $(BUILD)/,ksnoop vm/vmprog vm/kswait usdt/usdt_edge usdt/syscall_prog usdt/usdt_sites uprog/uvars)
arm64-test-bins: $(ARM64_TEST_BINS)

# make check builds on every core unless told how (-j given): serial, a
# fresh clone's two builds (native with sanitizers and fuzzers, arm64 with
# its libbpf) left one of CI's two cores idle (tests/README.md, CI time).
CHECK_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
check-bins: $(CHECK_BINS)

check: deps
	@$(MAKE) --no-print-directory $(CHECK_JOBS) check-bins
	@$(ARM64_MAKE) $(CHECK_JOBS) arm64-test-bins
	@tests/run --build $(BUILD) --arm64-build $(ARM64_BUILD)

unit: $(UNIT_BINS)
	@tests/run --build $(BUILD) --only unit

live: $(BUILD)/ksnoop $(BUILD)/san/ksnoop $(USDT_BINS) $(VM_BINS) $(LIVE_BINS)
	@tests/run --build $(BUILD) --only live

# Rewrites every golden file of the tree from what ksnoop prints now: the
# golden suite's (tests/golden/cases; no privileges), then, with
# KS_GOLDEN_UPDATE=1, those of the live scripts that have a folder
# tests/golden/NN-x/ (their messages name this kernel's functions: as root,
# on this kernel only).  Only on purpose, after an output change you meant;
# read git diff tests/golden before committing it.  make check compares.
comma := ,
empty :=
space := $(empty) $(empty)
GOLDEN_LIVE = $(subst $(space),$(comma),$(notdir $(wildcard tests/golden/[0-9]*)))
golden: $(FIXTURE_BTF) $(BUILD)/ksnoop $(BUILD)/san/ksnoop $(USDT_BINS) $(VM_BINS) $(LIVE_BINS)
	@tests/golden/run --build $(BUILD) --update
	@[ "$$(id -u)" = 0 ] || { echo "make golden: the live scripts' golden files need root (and this kernel): not rewritten" >&2; exit 1; }
	@KS_GOLDEN_UPDATE=1 tests/run --build $(BUILD) --only live:$(GOLDEN_LIVE)

vm: $(BUILD)/ksnoop $(BUILD)/usdt/usdt_edge $(BUILD)/usdt/usdt_forms $(BUILD)/usdt/syscall_prog $(BUILD)/usdt/ustack_prog \
    $(BUILD)/usdt/usdt_sites $(VM_BINS)
	@tests/run --build $(BUILD) --only vm

vm-arm64:
	@$(ARM64_MAKE) arm64-test-bins
	@tests/run --build $(BUILD) --arm64-build $(ARM64_BUILD) --only vm-arm64

# Benchmarks against bcc's ksnoop and bpftrace; writes docs/PERFORMANCE.md.
# Not tests: not part of `make check`. BENCH_ARGS="--keep ..." passes options.
bench: deps all $(USDT_BINS)
	@KSNOOP=$(BUILD)/ksnoop bench/run $(BENCH_ARGS)

# What the Debian package installs too (debian/rules calls this).  zsh
# reads Debian's vendor-completions; under /usr/local, site-functions is
# its usual place: ZSH_COMPLETIONS=/usr/local/share/zsh/site-functions.
ZSH_COMPLETIONS ?= $(PREFIX)/share/zsh/vendor-completions
INSTALLED := $(PREFIX)/sbin/ksnoop $(PREFIX)/share/man/man8/ksnoop.8 \
	     $(PREFIX)/share/bash-completion/completions/ksnoop $(ZSH_COMPLETIONS)/_ksnoop \
	     $(PREFIX)/share/doc/ksnoop/README.md
install: $(BUILD)/ksnoop
	install -D -m 0755 $(BUILD)/ksnoop $(DESTDIR)$(PREFIX)/sbin/ksnoop
	install -D -m 0644 docs/ksnoop.8 $(DESTDIR)$(PREFIX)/share/man/man8/ksnoop.8
	install -D -m 0644 completions/ksnoop.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ksnoop
	install -D -m 0644 completions/_ksnoop $(DESTDIR)$(ZSH_COMPLETIONS)/_ksnoop
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/ksnoop/README.md

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(PREFIX)/share/doc/ksnoop 2>/dev/null || true

# The Debian package: source and binary, built from a clean copy of this
# tree with libbpf's source as its orig-libbpf component; lintian after.
DEB_DIR := $(BUILD)/deb
deb:
	@scripts/make-deb $(VERSION) $(LIBBPF_VERSION) $(APT_DIR) $(DEB_DIR)

clean:
	rm -rf $(BUILD)
