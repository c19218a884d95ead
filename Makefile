# ipclab: `make run` sets everything up and runs the quick scenario; `make test` runs every suite.
# Each step is skipped when its output is newer than its inputs, so running again is cheap.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

VENV       := .venv
PY         := $(VENV)/bin/python
STAMPS     := .build
JDK         = $(shell scripts/find-jdk)
NATIVE_BIN := peers/native/build/ipclab-peer
FLOOR_BIN  := bench/floor/build/ipclab-floor
JAVA_JAR   := peers/java/peer/target/ipclab-peer.jar
JAVA_SRC   := $(shell find peers/java -path '*/target' -prune -o \( -name '*.java' -o -name pom.xml \) -print 2>/dev/null)
SCENARIO   ?= scenarios/quick.toml

.PHONY: run setup build test test-orchestrator test-native test-java test-python bench clean

run: build
	./ipclab run $(SCENARIO)

setup: $(STAMPS)/system $(STAMPS)/venv $(STAMPS)/rpcgen-python

build: setup $(NATIVE_BIN) $(FLOOR_BIN) $(JAVA_JAR)

$(STAMPS)/system: scripts/setup-system
	scripts/setup-system
	@mkdir -p $(STAMPS) && touch $@

$(STAMPS)/venv: requirements.lock orchestrator/pyproject.toml peers/python/pyproject.toml $(STAMPS)/system
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.lock
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e orchestrator -e peers/python
	@touch $@

# The Python peer's RPC stubs, generated from protocol/idl/ by each framework's own compiler
# (grpcio-tools, thrift, slice2py, omniidl), and Debian's Ice module made importable from the venv.
$(STAMPS)/rpcgen-python: $(STAMPS)/venv peers/python/generate_rpc.py $(wildcard protocol/idl/*)
	$(PY) peers/python/generate_rpc.py
	@touch $@

# The native build is incremental on its own (ninja), so it always runs and is a no-op when current.
# JAVA_HOME lets CMake find the JDK 25 headers for the JNI entry of libipclab_native.so.
$(NATIVE_BIN): FORCE setup
	JAVA_HOME=$(JDK) cmake -S peers/native -B peers/native/build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build peers/native/build

$(FLOOR_BIN): FORCE setup
	cmake -S bench/floor -B bench/floor/build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build bench/floor/build

$(JAVA_JAR): $(JAVA_SRC) | setup
	JAVA_HOME=$(JDK) mvn -q -B -f peers/java/pom.xml -DskipTests package

FORCE:

test: build test-orchestrator test-native test-java test-python

test-orchestrator: build
	$(PY) -m pytest orchestrator/tests -q

test-native: build
	ctest --test-dir peers/native/build --output-on-failure

test-java: build
	JAVA_HOME=$(JDK) mvn -q -B -f peers/java/pom.xml test

test-python: build
	$(PY) -m pytest peers/python/tests -q

# Speed targets are checked here, by numbers printed, never by timed assertions in tests.
bench: build
	./ipclab bench kernel
	./ipclab bench shm

clean:
	rm -rf peers/native/build bench/floor/build $(STAMPS)
	JAVA_HOME=$(JDK) mvn -q -B -f peers/java/pom.xml clean || true
