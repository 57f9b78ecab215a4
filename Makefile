# xfercmp — see README.md. `make` builds ./xfercmp; `make check` runs every test;
# `make demo` runs the comparison against the testbed host.

CC ?= cc
PREFIX ?= /usr/local
BUILD ?= build

PKGS := libarchive libssh libzstd liburing libxxhash json-c libcrypto
# pkg-config name -> Debian package, for the error when one is missing
DEB_libarchive := libarchive-dev
DEB_libssh := libssh-dev
DEB_libzstd := libzstd-dev
DEB_liburing := liburing-dev
DEB_libxxhash := libxxhash-dev
DEB_json-c := libjson-c-dev
DEB_libcrypto := libssl-dev
DEB_cmocka := libcmocka-dev
DEB_libnetfilter_queue := libnetfilter-queue-dev

# Only targets that compile need the libraries: `make clean` or `make demo` on a
# bare machine must not stop here (demo installs them first).
NEEDS_LIBS := $(if $(MAKECMDGOALS),$(filter all xfercmp xfercmp-agent asan install unit-tests fuzz fuzz-build,$(MAKECMDGOALS)),all)
ifneq ($(NEEDS_LIBS),)
ifeq ($(shell command -v pkg-config),)
$(error pkg-config not found: run 'sudo scripts/setup.sh' or 'apt-get install pkg-config')
endif
$(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(p) && echo y),,$(error $(p) not found: install the Debian package $(DEB_$(p)) (or run 'sudo scripts/setup.sh'))))
endif
# the delayer's library, needed only by the targets that build it
ifneq ($(filter unit-tests delayer $(BUILD)/tests/delayer,$(MAKECMDGOALS)),)
ifneq ($(shell pkg-config --exists libnetfilter_queue && echo y),y)
$(error libnetfilter_queue not found: install the Debian package $(DEB_libnetfilter_queue) (or run 'sudo scripts/setup.sh'))
endif
endif

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wvla -Wcast-qual -Werror
INCLUDES := -Icommon -Iworkloads -Itransfer -Icmd
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARNINGS) $(INCLUDES) -D_FILE_OFFSET_BITS=64 -pthread \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(CFLAGS)
LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -pthread

# One archive per layer (README.md, "Layout"; the table is scripts/layers.mk),
# linked top-down in one pass and never in a group: a call from a lower layer
# to a higher one is an undefined reference, so a wrong dependency fails the
# link, and `make check-layers` checks every include and every symbol against
# the table. The static agent links only the layers it runs (AGENT_LAYERS);
# tests/checks/agent_boundary.t checks the binary holds none of the others.
include scripts/layers.mk
layer_lib = $(BUILD)/lib/$(notdir $(1)).a
LIB_SRC := $(foreach r,$(LAYERS),$(wildcard $(r)/*.c))
# cmd/main.c and the commands' parsing and wiring: only the client binary links them
# (their reports are the cmd/report layer's archive)
CMD_SRC := $(wildcard cmd/*.c)
# the agent alone: `xfercmp serve` without the client commands
AGENT_OBJ := $(BUILD)/obj/cmd/agent/main.o $(BUILD)/obj/cmd/cmd_serve.o $(BUILD)/obj/cmd/cmd_errors.o \
	$(BUILD)/obj/cmd/cli.o
AGENT_ARCHIVES := $(foreach r,$(call layers_down,$(AGENT_LAYERS)),$(call layer_lib,$(r)))
# AGENT_BIN and AGENT_EXTRA_OBJ let tests/checks/agent_boundary.t link the agent
# with one more object and see which calls the boundary refuses.
AGENT_BIN ?= xfercmp-agent
AGENT_EXTRA_OBJ ?=
# Static: uploaded to hosts that have none of our libraries. Only what the
# agent's code reaches is pulled in (tar reading, zstd, io_uring, xxhash, JSON,
# OpenSSL's HKDF and HMAC for the session key); no libssh, so an SSH call in
# agent code is an undefined reference.
AGENT_STATIC_LIBS := -larchive -lacl -lzstd -luring -lxxhash -ljson-c -lcrypto -llzma -lbz2 -lz -lnettle -lm -pthread
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CMD_OBJ := $(CMD_SRC:%.c=$(BUILD)/obj/%.o)
# every layer, the highest first: one pass of the linker resolves each call downward
ALL_ARCHIVES := $(foreach r,$(call layers_down,$(LAYERS)),$(call layer_lib,$(r)))
LINK_ALL := $(ALL_ARCHIVES)
# one folder a layer, as in transfer/: tests/unit/stream/test_frames.c -> build/tests/unit/stream/test_frames
UNIT_SRC := $(wildcard tests/unit/*/test_*.c)
UNIT_BIN := $(UNIT_SRC:%.c=$(BUILD)/%)

# the client binary; the sanitizer build puts its own under build/asan/
BIN ?= xfercmp

.PHONY: all check unit-tests demo asan install clean setup docs
all: $(BIN) $(AGENT_BIN)

$(BIN): $(CMD_OBJ) $(ALL_ARCHIVES)
	$(CC) $(ALL_CFLAGS) -o $@ $(CMD_OBJ) $(LINK_ALL) $(LIBS) $(LDFLAGS)

# glibc warns that getpwnam & co. need its shared NSS modules at run time when
# linked statically; the agent never looks up users (no ARCHIVE_EXTRACT_OWNER).
$(AGENT_BIN): $(AGENT_OBJ) $(AGENT_EXTRA_OBJ) $(AGENT_ARCHIVES)
	@mkdir -p $(BUILD)
	$(CC) -static $(ALL_CFLAGS) -o $@ $(AGENT_OBJ) $(AGENT_EXTRA_OBJ) $(AGENT_ARCHIVES) \
		$(AGENT_STATIC_LIBS) \
		$(LDFLAGS) 2>$(BUILD)/$(notdir $@)-link.log || { cat $(BUILD)/$(notdir $@)-link.log; exit 1; }
	@grep -v 'statically linked applications requires at runtime' $(BUILD)/$(notdir $@)-link.log || true

# $(BUILD)/lib/<folder>.a from that folder's objects
define layer_archive
$(call layer_lib,$(1)): $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard $(1)/*.c))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach r,$(LAYERS),$(eval $(call layer_archive,$(r))))

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

# -MMD (into a hidden .NAME.d beside the test): a change to a header a test includes rebuilds it
$(BUILD)/tests/unit/%: tests/unit/%.c $(ALL_ARCHIVES)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(shell pkg-config --cflags cmocka) -MMD -MP -MF $(@D)/.$(@F).d \
		-o $@ $< $(UNIT_EXTRA_SRC) $(LINK_ALL) $(LIBS) $(shell pkg-config --libs cmocka)
# a unit test of a test tool links the tool's source beside it (no test includes a .c)
$(BUILD)/tests/unit/tools/test_json_schema: UNIT_EXTRA_SRC := tests/tools/json_schema.c
$(BUILD)/tests/unit/tools/test_json_schema: tests/tools/json_schema.c

# small drivers the integration tests call
$(BUILD)/tests/ssh_probe: tests/tools/ssh_probe.c $(ALL_ARCHIVES)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LINK_ALL) $(LIBS) $(LDFLAGS)

# The JSON Schema subset validator (json_schema_check.t, json_schema.t): json-c only.
JSON_SCHEMA_CHECK := $(BUILD)/tests/json_schema_check
$(JSON_SCHEMA_CHECK): tests/tools/json_schema_check.c tests/tools/json_schema.c tests/tools/json_schema.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARNINGS) $(shell pkg-config --cflags json-c) $(CFLAGS) -o $@ \
		tests/tools/json_schema_check.c tests/tools/json_schema.c $(shell pkg-config --libs json-c) -lm $(LDFLAGS)

# The testbed's delayer (scripts/testbed.sh up --delay): only libnetfilter_queue,
# none of ours but the header-only clock. Built with the tests, not with `all`:
# xfercmp itself does not need the library.
DELAYER := $(BUILD)/tests/delayer
$(DELAYER): tests/tools/delayer.c common/clock.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARNINGS) -Icommon $(shell pkg-config --cflags libnetfilter_queue) $(CFLAGS) \
		-o $@ $< $(shell pkg-config --libs libnetfilter_queue) $(LDFLAGS)

.PHONY: delayer
delayer: $(DELAYER)

# The small-file limit of scripts/bench.sh's limits section: libc and threads only.
TREE_LIMIT := $(BUILD)/tests/tree_limit
$(TREE_LIMIT): tests/tools/tree_limit.c common/clock.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARNINGS) -Icommon $(CFLAGS) -o $@ $< -pthread $(LDFLAGS)

# The relay test's second preimage of XXH3 (relay.t): libxxhash's header only.
XXH3_COLLIDE := $(BUILD)/tests/xxh3_collide
$(XXH3_COLLIDE): tests/tools/xxh3_collide.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARNINGS) $(shell pkg-config --cflags libxxhash) $(CFLAGS) -o $@ $< $(LDFLAGS)

unit-tests: $(UNIT_BIN) $(BUILD)/tests/ssh_probe $(DELAYER) $(JSON_SCHEMA_CHECK) $(TREE_LIMIT) $(XXH3_COLLIDE)

setup:
	@scripts/setup.sh

# The README's test command: installs what is missing, builds, runs the unit
# tests, the integration tests (loopback and the testbed host), the
# integration tests again under ASan/UBSan, and each fuzzer for FUZZ_SECONDS
# (CHECK_FUZZ_SECONDS, 10); ends with "N passed, N failed, N skipped" (under CI=true a skip fails).
# One part alone: check-unit (under 30 s), check-integration (about 10 min),
# check-boundary, check-layers, check-fuzz, check-asan (the sanitizers' run, about 5 min).
UNIT_TESTS = $(UNIT_BIN)
INTEGRATION_TESTS = $(sort $(wildcard tests/integration/*.t))
# The integration suites tests/checks/sanitizers.t runs again under ASan/UBSan.
# make check runs them only there: the same assertions on the sanitizer build,
# where a second run on the release build cost about 200 s of a 48-minute CI run
# (gen_verify.t 10 s, compare_local.t 70 s, compare_ssh.t 120 s; CI of a5352c5,
# 2026-12-06). Every other suite runs the release build; check-integration runs all.
ASAN_SUITES := gen_verify.t compare_local.t compare_ssh.t
# the unit tests' slow cases (slow_unit_test: real time, a real disk) run in
# tests/integration/unit_slow.t, not with the rest
# The builds of check and its parts use every core unless make was given -j: CI
# runs a bare `make check`, and one compile at a time left one of its two cores idle.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
check_make = $(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS))
check_part = @FUZZ_SECONDS=$(CHECK_FUZZ_SECONDS) XFERCMP_TEST_SKIP='slow_*' tests/run.sh
check: setup
	@$(check_make) all unit-tests
	@$(check_make) asan
	@$(check_make) fuzz-build
	$(check_part) $(UNIT_TESTS) $(filter-out $(addprefix tests/integration/,$(ASAN_SUITES)),$(INTEGRATION_TESTS)) \
		$(sort $(wildcard tests/checks/*.t))

.PHONY: check-unit check-integration check-boundary check-fuzz check-asan check-layers
# the layers run one way (scripts/layers.mk): every include and symbol checked,
# and a planted upward include and call refused
check-layers: setup
	@$(check_make) all
	$(check_part) tests/checks/layers.t
check-unit: setup
	@$(check_make) all unit-tests
	$(check_part) $(UNIT_TESTS)
check-integration: setup
	@$(check_make) all unit-tests
	$(check_part) $(INTEGRATION_TESTS)
check-boundary: setup
	@$(check_make) all
	$(check_part) tests/checks/agent_boundary.t
check-fuzz: setup
	@$(check_make) fuzz-build
	$(check_part) tests/checks/fuzz.t
check-asan: setup
	@$(check_make) all unit-tests
	@$(check_make) asan
	$(check_part) tests/checks/sanitizers.t

# CI's fuzz run is a smoke test from the committed seeds, not a search: each
# run starts from the same corpus, the saved crashes (tests/fuzz/crashes/)
# replay every run, and a long search is `make fuzz FUZZ_SECONDS=600`. 10 s, as
# outside CI: with 5 targets in 3 rounds on CI's 2 cores, 60 s each was 187 s of a
# 48-minute CI run (2026-12-06) and each new target adds half a round; at 30 s the
# eight targets still took 128 s of the next one's 48 minutes, at 15 s 68 s of a
# 46-minute one (four rounds of two).
CHECK_FUZZ_SECONDS ?= 10

demo: setup
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

# AddressSanitizer + UndefinedBehaviorSanitizer build in its own tree:
# build/asan/xfercmp. make check-asan runs the integration tests with it.
asan:
	@$(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/xfercmp \
		CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
		LDFLAGS="-fsanitize=address,undefined" build/asan/xfercmp

# The man page and the bash and zsh completions, generated from the commands'
# own --help texts (scripts/gen-docs.sh), so none of them can drift from it.
DOCS := $(BUILD)/docs
docs: $(BIN)
	@scripts/gen-docs.sh ./$(BIN) $(DOCS)

install: all docs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions
	install -m 0755 xfercmp $(DESTDIR)$(PREFIX)/bin/xfercmp
	install -m 0755 xfercmp-agent $(DESTDIR)$(PREFIX)/bin/xfercmp-agent
	install -m 0644 $(DOCS)/xfercmp.1 $(DESTDIR)$(PREFIX)/share/man/man1/xfercmp.1
	install -m 0644 $(DOCS)/xfercmp.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/xfercmp
	install -m 0644 $(DOCS)/_xfercmp $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_xfercmp

clean:
	rm -rf $(BUILD)/obj $(BUILD)/lib $(BUILD)/tests $(BUILD)/asan $(BUILD)/fuzz $(BUILD)/libxfercmp.a xfercmp xfercmp-agent

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(AGENT_OBJ:.o=.d) $(join $(dir $(UNIT_BIN)),$(patsubst %,.%.d,$(notdir $(UNIT_BIN))))

# libFuzzer targets (tests/fuzz/fuzz_*.c): clang with ASan and UBSan, built from
# the sources into build/fuzz/, never linked with the gcc-built library. The
# library objects drop -Werror: gcc's warnings gate them, clang's differ.
# `make fuzz` runs each target for FUZZ_SECONDS on a copy of its corpus.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 $(filter-out -Werror,$(WARNINGS)) $(INCLUDES) -D_FILE_OFFSET_BITS=64 \
	-pthread $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -O1 -g $(FUZZ_SAN)
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
# Only the agent's layers (AGENT_LAYERS): the fuzzers drive the code that meets a
# hostile peer's bytes, all of it the agent's, and those layers link on their own
# (the static agent is proof). Compiling every layer with clang and the sanitizers
# was twice the work for objects no target linked. A target that needs a layer
# above them fails to link, naming the symbol: add the layer here.
FUZZ_LAYERS := $(AGENT_LAYERS)
FUZZ_LIB_OBJ := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(foreach r,$(FUZZ_LAYERS),$(wildcard $(r)/*.c)))

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BIN)

fuzz: fuzz-build
	@fail=0; for t in $(notdir $(FUZZ_BIN)); do \
		BUILD=$(BUILD) tests/fuzz/run.sh $$t $(FUZZ_SECONDS) || fail=1; done; exit $$fail

$(FUZZ_LIB_OBJ): $(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(BUILD)/fuzz/libxfercmp.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_BIN): $(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/harness.c tests/fuzz/harness.h \
		$(BUILD)/fuzz/libxfercmp.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -fsanitize=fuzzer -o $@ $< tests/fuzz/harness.c \
		$(BUILD)/fuzz/libxfercmp.a $(LIBS)

-include $(FUZZ_LIB_OBJ:.o=.d)
