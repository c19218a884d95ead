# ipclab: `make run` sets everything up and runs the quick scenario; `make test` runs every suite.
# Languages are data: every peers/<dir>/peer.toml says how its peer is built and tested, and
# `ipclab peers build|test` reads it, so this file names no language. Each step is skipped when
# its output is newer than its inputs, so running again is cheap.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

VENV      := .venv
PY        := $(VENV)/bin/python
IPCLAB    := $(PY) -m ipclab
STAMPS    := .build
FLOOR_BIN := bench/floor/build/ipclab-floor
PEERS     := $(notdir $(patsubst %/peer.toml,%,$(wildcard peers/*/peer.toml)))
SCENARIO  ?= scenarios/quick.toml
ORCH_SHARDS := 1 2 3
# scripts/isolated, when `make test` runs the suites at once
ISOLATE   :=

.PHONY: run setup build suites test test-fast test-durations test-sanitize test-orchestrator orchestrator-suite \
        orchestrator-units bench fuzz clean FORCE $(addprefix orchestrator-shard-,$(ORCH_SHARDS)) \
        $(addprefix build-,$(PEERS)) $(addprefix test-,$(PEERS)) $(addprefix peer-suite-,$(PEERS))

# Every peer whose toolchain is here (a missing one is one line: which, and how to get it), then
# the scenario with the languages that are built; their cases are marked unavailable otherwise.
run: setup $(FLOOR_BIN)
	$(IPCLAB) peers build --available
	./ipclab run $(SCENARIO)

setup: $(STAMPS)/system $(STAMPS)/venv $(STAMPS)/broker

# Every peer (its peer.toml's build commands, then a check of its capabilities), side by side,
# and the C floor.
build: setup $(FLOOR_BIN)
	$(MAKE) --no-print-directory -O -j$(words $(PEERS)) $(addprefix build-,$(PEERS))

$(addprefix build-,$(PEERS)): build-%: setup
	$(IPCLAB) peers build $*

$(STAMPS)/system: scripts/setup-system
	scripts/setup-system
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/broker: scripts/setup-broker $(STAMPS)/system
	scripts/setup-broker
	@mkdir -p $(STAMPS) && touch $@

# uv installs the locked versions (pinned here, from PyPI like them) in a third of pip's time.
UV_VERSION := 0.13.9
$(STAMPS)/venv: requirements.lock orchestrator/pyproject.toml peers/python/pyproject.toml $(STAMPS)/system
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install -q --python $(PY) --compile-bytecode -r requirements.lock
	$(VENV)/bin/uv pip install -q --python $(PY) --no-deps -e orchestrator -e peers/python
	@touch $@

# The hand-written C ping-pongs of `ipclab bench` (not a peer: no peer.toml). Ninja is incremental.
$(FLOOR_BIN): FORCE setup
	cmake -S bench/floor -B bench/floor/build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build bench/floor/build

FORCE:

# Every suite after the build, in two tiers: `make test-fast` runs the orchestrator's unit tests
# (those not marked e2e: no scenario of real peers) and every peer's own suite; `make test` adds
# the orchestrator's end-to-end tests, dealt into three shards (a shard waits on its peers about
# a third of its time: two left the second CPU idle once the other suites were done). Where
# scripts/isolated can give each suite kernel IPC objects of its own (as root), a tier's suites
# run at once: the orchestrator's runs sweep the tagged objects they see and its kernel tests
# check that none is left, and each suite's own checks of what it made must not meet another's
# objects either. Elsewhere the orchestrator's suite runs first and alone, then the peers' side
# by side. -O prints each suite's output in one piece.
PEER_SUITES := $(addprefix peer-suite-,$(PEERS))
E2E_SHARDS  := $(addprefix orchestrator-shard-,$(ORCH_SHARDS))

test: build
	$(MAKE) --no-print-directory suites SUITES="orchestrator-units $(E2E_SHARDS) $(PEER_SUITES)" \
	  ALONE="orchestrator-suite"

test-fast: build
	$(MAKE) --no-print-directory suites SUITES="orchestrator-units $(PEER_SUITES)" \
	  ALONE="orchestrator-units"

# Each end-to-end test's seconds into orchestrator/tests/durations.json (what the shards are
# dealt by): the tier's shards side by side as `make test` runs them, on a quiet machine. Run it
# again when tests are added or their sizes change.
test-durations: build
	export IPCLAB_STORE_DURATIONS=1; if scripts/isolated --check; then \
	  $(MAKE) --no-print-directory -O -j$(words $(E2E_SHARDS)) ISOLATE=scripts/isolated $(E2E_SHARDS); \
	else \
	  $(MAKE) --no-print-directory $(E2E_SHARDS); \
	fi

suites:
	if scripts/isolated --check; then \
	  $(MAKE) --no-print-directory -O -j$(words $(SUITES)) ISOLATE=scripts/isolated $(SUITES); \
	else \
	  $(MAKE) --no-print-directory $(ALONE) && \
	  $(MAKE) --no-print-directory -O -j$(words $(PEERS)) $(PEER_SUITES); \
	fi

test-orchestrator: build
	$(MAKE) --no-print-directory orchestrator-suite

orchestrator-suite:
	$(PY) -m pytest orchestrator/tests -q --durations=30

orchestrator-units:
	$(ISOLATE) $(PY) -m pytest orchestrator/tests -q -m "not e2e" --durations=10

$(E2E_SHARDS): orchestrator-shard-%:
	$(ISOLATE) env IPCLAB_TEST_SHARD=$*/$(words $(ORCH_SHARDS)) \
	  $(PY) -m pytest orchestrator/tests -q -m e2e --durations=15

# One peer's suite: after the build (test-java), or as `test` runs it, the build done.
$(addprefix test-,$(PEERS)): test-%: build
	$(IPCLAB) peers test $*

$(addprefix peer-suite-,$(PEERS)): peer-suite-%:
	$(ISOLATE) $(IPCLAB) peers test $*

# The C++ peer and its GoogleTest suite under ASan + UBSan (peers/native/README.md "Sanitizers"),
# in a build directory of its own. ASan/LSan reports go to files under build-asan/sanitizer-logs
# (the suite runs the peer as a subprocess, often with stderr closed); any file there fails the
# target. UBSan (GCC 12) ignores log_path and writes to stderr (halting with exit code 1): any
# report in the tests' recorded output (LastTest.log) fails the target too. CTEST_ARGS narrows.
SAN_DIR := peers/native/build-asan
SAN_SUPP := $(CURDIR)/peers/native/sanitizers
test-sanitize:
	export JAVA_HOME="$$(scripts/find-jdk 2>/dev/null || true)"; \
	cmake -S peers/native -B $(SAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DIPCLAB_SANITIZE=address >/dev/null
	cmake --build $(SAN_DIR)
	cmake --build $(SAN_DIR) --target ipclab-peer-tests
	rm -rf $(SAN_DIR)/sanitizer-logs && mkdir -p $(SAN_DIR)/sanitizer-logs
	logs=$(CURDIR)/$(SAN_DIR)/sanitizer-logs; status=0; \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:log_path=$$logs/asan \
	LSAN_OPTIONS=suppressions=$(SAN_SUPP)/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(SAN_SUPP)/ubsan.supp \
	  ctest --test-dir $(SAN_DIR) --output-on-failure $(CTEST_ARGS) || status=$$?; \
	if compgen -G "$$logs/*" >/dev/null; then \
	  for f in $$logs/*; do echo "=== $$f"; cat "$$f"; done; echo "test-sanitize: sanitizer reports above"; exit 1; \
	fi; \
	if grep -n "runtime error:\|Sanitizer" $(SAN_DIR)/Testing/Temporary/LastTest.log; then \
	  echo "test-sanitize: sanitizer reports in the tests' output (LastTest.log)"; exit 1; \
	fi; exit $$status

# Every fuzz target for FUZZ_SECONDS each (scripts/fuzz): executions, coverage, corpus, crashes.
# `make test` only replays the committed corpora.
fuzz: setup $(STAMPS)/fuzz-tools
	scripts/fuzz

$(STAMPS)/fuzz-tools: scripts/setup-system
	scripts/setup-system fuzz
	@mkdir -p $(STAMPS) && touch $@

# Speed targets are checked here, by numbers printed, never by timed assertions in tests.
bench: build
	./ipclab bench kernel
	./ipclab bench shm

clean:
	$(IPCLAB) peers clean
	rm -rf bench/floor/build $(STAMPS)
