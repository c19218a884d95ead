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

.PHONY: run setup build test test-orchestrator bench clean FORCE \
        $(addprefix build-,$(PEERS)) $(addprefix test-,$(PEERS)) $(addprefix peer-suite-,$(PEERS))

# Every peer whose toolchain is here (a missing one is one line: which, and how to get it), then
# the scenario with the languages that are built; their cases are marked unavailable otherwise.
run: setup $(FLOOR_BIN)
	$(IPCLAB) peers build --available
	./ipclab run $(SCENARIO)

setup: $(STAMPS)/system $(STAMPS)/venv

# Every peer (its peer.toml's build commands, then a check of its capabilities), and the C floor.
build: setup $(FLOOR_BIN) $(addprefix build-,$(PEERS))

$(addprefix build-,$(PEERS)): build-%: setup
	$(IPCLAB) peers build $*

$(STAMPS)/system: scripts/setup-system
	scripts/setup-system
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/venv: requirements.lock orchestrator/pyproject.toml peers/python/pyproject.toml $(STAMPS)/system
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e orchestrator -e peers/python
	@touch $@

# The hand-written C ping-pongs of `ipclab bench` (not a peer: no peer.toml). Ninja is incremental.
$(FLOOR_BIN): FORCE setup
	cmake -S bench/floor -B bench/floor/build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build bench/floor/build

FORCE:

# The orchestrator's suite runs first and alone: each of its runs sweeps the machine's tagged IPC
# objects and its kernel tests check that none is left, so nothing else may make them meanwhile.
# The peers' suites then run side by side (each checks only the objects it made; -O prints each
# suite's output in one piece when it ends): on two CPUs that saves minutes of process start-ups.
test: build test-orchestrator
	$(MAKE) --no-print-directory -O -j$(words $(PEERS)) $(addprefix peer-suite-,$(PEERS))

test-orchestrator: build
	$(PY) -m pytest orchestrator/tests -q --durations=30

# One peer's suite: after the build (test-java), or as `test` runs it, the build done.
$(addprefix test-,$(PEERS)): test-%: build
	$(IPCLAB) peers test $*

$(addprefix peer-suite-,$(PEERS)): peer-suite-%:
	$(IPCLAB) peers test $*

# Speed targets are checked here, by numbers printed, never by timed assertions in tests.
bench: build
	./ipclab bench kernel
	./ipclab bench shm

clean:
	$(IPCLAB) peers clean
	rm -rf bench/floor/build $(STAMPS)
