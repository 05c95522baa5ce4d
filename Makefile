# orientationd: the two commands a newcomer needs are `make run` and `make test`.
# Each installs the missing Debian 12 packages first (scripts/prerequisites.sh).

# The Swift toolchain is unpacked by hand; on these machines it lives in /opt/swift.
ifeq ($(shell command -v swift 2>/dev/null),)
export PATH := /opt/swift/usr/bin:$(PATH)
endif

SWIFT ?= swift
SHELL := /bin/bash

.PHONY: help run test build release score bench clean

help:
	@echo "orientationd — targets:"
	@echo "  make run      install missing run prerequisites (apt), build, then run the demo:"
	@echo "                a private session bus, orientationd with the simulated sensor and"
	@echo "                'orientationctl monitor' until Ctrl-C (everything is stopped after)"
	@echo "  make test     install missing build and test prerequisites (apt), build every"
	@echo "                test target and run all tests (swift test)"
	@echo "  make build    debug build of orientationd and orientationctl (.build/debug)"
	@echo "  make release  release build with the Swift runtime linked statically (.build/release)"
	@echo "  make score    scripts/score.sh: score the orientation engine on the labelled traces"
	@echo "  make bench    scripts/bench-daemon.sh: start time, idle memory, idle wake-ups, sizes"
	@echo "  make clean    remove .build"

run:
	scripts/prerequisites.sh run
	$(SWIFT) build
	scripts/demo.sh

test:
	scripts/prerequisites.sh test
	$(SWIFT) build --build-tests
	$(SWIFT) test

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release -Xswiftc -static-stdlib

score:
	@test -f scripts/score.sh || { echo "make score: scripts/score.sh is not there yet" >&2; exit 1; }
	bash scripts/score.sh

bench:
	scripts/prerequisites.sh bench
	scripts/bench-daemon.sh

clean:
	rm -rf .build
