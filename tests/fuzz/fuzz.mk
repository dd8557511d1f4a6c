# libFuzzer targets (included by the Makefile).
#
#   $(BUILD)/fuzz/fuzz_spec        the spec parser, all three kinds
#   $(BUILD)/fuzz/fuzz_resolve     spec -> resolver -> printer, in-memory BTF
#   $(BUILD)/fuzz/fuzz_usdt_arg    one SDT note argument ("-4@%edi")
#   $(BUILD)/fuzz/fuzz_usdt_note   SDT note sections in a well-formed ELF
#   $(BUILD)/fuzz/fuzz_usdt_elf    whole files, as `ksnoop usdt FILE:...` reads
#   $(BUILD)/fuzz/fuzz_btf         BTF blobs (.BTF, --btf) through resolver and printer
#   $(BUILD)/fuzz/fuzz_usym_elf    the user stack symbolizer's ELF reader, whole files
#   $(BUILD)/fuzz/fuzz_recfile     record files, through the reader and the printer
#   $(BUILD)/fuzz/fuzz_dwarf       whole ELF files' DWARF into BTF (ksnoop/dwarf/)
#   $(BUILD)/fuzz/fuzz_pfilter     --filter's classic BPF checker and interpreter step
#
# `make check` runs each for a bounded time (tests/fuzz/run --check);
# `make fuzz` runs them for longer.  The ksnoop sources are compiled again
# here, with clang and the fuzzer's instrumentation, into $(BUILD)/fuzz/.

FUZZ_TARGETS := spec resolve usdt_arg usdt_note usdt_elf btf usym_elf recfile dwarf pfilter
FUZZ_BINS    += $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)

FUZZ_CC      ?= $(CLANG)
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_OBJS    := $(CORE_SRCS:%.c=$(BUILD)/fuzz/%.o)

$(BUILD)/fuzz:
	@mkdir -p $@

$(BUILD)/fuzz/%.o: %.c $(LIBBPF_A) | $(BUILD)/fuzz $(SKELS)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_FLAGS) $(WARNINGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_usdt.h $(FUZZ_OBJS) $(HDRS) $(TEST_HDRS) $(LIBBPF_A) | $(BUILD)/fuzz
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_FLAGS) $(WARNINGS) \
		$< $(FUZZ_OBJS) $(PKG_LIBS) -o $@

# The BTF fuzzer is seeded with the unit tests' compiled BTF (tests/fuzz/run).
$(BUILD)/fuzz/fuzz_btf: $(BUILD)/fixture/types.btf

# Keep the objects: they are shared by every target.
.SECONDARY: $(FUZZ_OBJS)

# Long runs: FUZZ_TIME seconds per target (default 600), two at a time.
FUZZ_TIME ?= 600
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run --build $(BUILD) --time $(FUZZ_TIME)
