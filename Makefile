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
ORCH_SHARDS := 1 2
# scripts/isolated, when `make test` runs the suites at once
ISOLATE   :=

.PHONY: run setup build test test-orchestrator orchestrator-suite bench fuzz clean FORCE \
        $(addprefix orchestrator-shard-,$(ORCH_SHARDS)) \
        $(addprefix build-,$(PEERS)) $(addprefix test-,$(PEERS)) $(addprefix peer-suite-,$(PEERS))

# Every peer whose toolchain is here (a missing one is one line: which, and how to get it), then
# the scenario with the languages that are built; their cases are marked unavailable otherwise.
run: setup $(FLOOR_BIN)
	$(IPCLAB) peers build --available
	./ipclab run $(SCENARIO)

setup: $(STAMPS)/system $(STAMPS)/venv

# Every peer (its peer.toml's build commands, then a check of its capabilities), side by side,
# and the C floor.
build: setup $(FLOOR_BIN)
	$(MAKE) --no-print-directory -O -j$(words $(PEERS)) $(addprefix build-,$(PEERS))

$(addprefix build-,$(PEERS)): build-%: setup
	$(IPCLAB) peers build $*

$(STAMPS)/system: scripts/setup-system
	scripts/setup-system
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

# Every suite after the build. Where scripts/isolated can give each suite kernel IPC objects of its
# own (as root), all run at once, the orchestrator's in two shards: its runs sweep the tagged
# objects they see and its kernel tests check that none is left, and each suite's own checks of
# what it made must not meet another's objects either. Elsewhere the orchestrator's suite runs
# first and alone, then the peers' side by side. -O prints each suite's output in one piece.
test: build
	if scripts/isolated --check; then \
	  $(MAKE) --no-print-directory -O -j$(words $(ORCH_SHARDS) $(PEERS)) ISOLATE=scripts/isolated \
	    $(addprefix orchestrator-shard-,$(ORCH_SHARDS)) $(addprefix peer-suite-,$(PEERS)); \
	else \
	  $(MAKE) --no-print-directory orchestrator-suite && \
	  $(MAKE) --no-print-directory -O -j$(words $(PEERS)) $(addprefix peer-suite-,$(PEERS)); \
	fi

test-orchestrator: build
	$(MAKE) --no-print-directory orchestrator-suite

orchestrator-suite:
	$(PY) -m pytest orchestrator/tests -q --durations=30

$(addprefix orchestrator-shard-,$(ORCH_SHARDS)): orchestrator-shard-%:
	scripts/isolated env IPCLAB_TEST_SHARD=$*/$(words $(ORCH_SHARDS)) \
	  $(PY) -m pytest orchestrator/tests -q --durations=15

# One peer's suite: after the build (test-java), or as `test` runs it, the build done.
$(addprefix test-,$(PEERS)): test-%: build
	$(IPCLAB) peers test $*

$(addprefix peer-suite-,$(PEERS)): peer-suite-%:
	$(ISOLATE) $(IPCLAB) peers test $*

# Every fuzz target for FUZZ_SECONDS each (scripts/fuzz): executions, coverage, corpus, crashes.
# `make test` only replays the committed corpora.
fuzz: setup
	scripts/fuzz

# Speed targets are checked here, by numbers printed, never by timed assertions in tests.
bench: build
	./ipclab bench kernel
	./ipclab bench shm

clean:
	$(IPCLAB) peers clean
	rm -rf bench/floor/build $(STAMPS)
