# orientationd: the two commands a newcomer needs are `make run` and `make test`.
# Each installs the missing Debian 12 packages first (scripts/prerequisites.sh).

# The Swift toolchain is unpacked by hand; on these machines it lives in /opt/swift.
ifeq ($(shell command -v swift 2>/dev/null),)
export PATH := /opt/swift/usr/bin:$(PATH)
endif

SWIFT ?= swift
# The Swift toolchain leaves empty TemporaryDirectory.* folders and SwiftPM's lock files
# in TMPDIR at every build, even one with nothing to do (ten entries): the builds make
# runs keep them in .build/tmp, which make clean removes, not in the user's /tmp.
SWIFT_TMPDIR = $(CURDIR)/.build/tmp
SWIFT_BUILD = mkdir -p "$(SWIFT_TMPDIR)" && TMPDIR="$(SWIFT_TMPDIR)" $(SWIFT) build
# One set of release flags (static Swift runtime, lld, packed relocations, link order).
RELEASE_FLAGS = $(shell scripts/release-flags.sh)
FUZZ_SECONDS ?= 10
SHELL := /bin/bash

.PHONY: help run test build release score bench soak order-file fuzz clean install uninstall demo screenshots deb deb-test

# make install / make uninstall (scripts/install.sh has the details; DESTDIR stages).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
SYSCONFDIR ?= /etc
DBUSPOLICYDIR ?= $(DATADIR)/dbus-1/system.d
DBUSSYSTEMSERVICEDIR ?= $(DATADIR)/dbus-1/system-services
DBUSSESSIONSERVICEDIR ?= $(DATADIR)/dbus-1/services
POLKITACTIONDIR ?= $(DATADIR)/polkit-1/actions
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSTEMDSYSTEMUNITDIR ?= $(PREFIX)/lib/systemd/system
SENSOR_PROXY_COMPAT_FILES ?= auto
INSTALL_SESSION_SERVICE ?= no
REPLACE_SENSOR_PROXY ?= no
STRIP ?= yes
DBUSINTERFACESDIR ?= $(DATADIR)/dbus-1/interfaces
DOCDIR ?= $(DATADIR)/doc/orientationd
BASHCOMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPLETIONDIR ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPLETIONDIR ?= $(DATADIR)/fish/vendor_completions.d
INSTALL_VARS = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" LIBEXECDIR="$(LIBEXECDIR)" \
	DATADIR="$(DATADIR)" MANDIR="$(MANDIR)" SYSCONFDIR="$(SYSCONFDIR)" DBUSPOLICYDIR="$(DBUSPOLICYDIR)" \
	DBUSSYSTEMSERVICEDIR="$(DBUSSYSTEMSERVICEDIR)" DBUSSESSIONSERVICEDIR="$(DBUSSESSIONSERVICEDIR)" \
	POLKITACTIONDIR="$(POLKITACTIONDIR)" UDEVRULESDIR="$(UDEVRULESDIR)" \
	SYSTEMDSYSTEMUNITDIR="$(SYSTEMDSYSTEMUNITDIR)" SENSOR_PROXY_COMPAT_FILES="$(SENSOR_PROXY_COMPAT_FILES)" \
	INSTALL_SESSION_SERVICE="$(INSTALL_SESSION_SERVICE)" REPLACE_SENSOR_PROXY="$(REPLACE_SENSOR_PROXY)" STRIP="$(STRIP)" SWIFT="$(SWIFT)" \
	DBUSINTERFACESDIR="$(DBUSINTERFACESDIR)" DOCDIR="$(DOCDIR)" BASHCOMPLETIONDIR="$(BASHCOMPLETIONDIR)" \
	ZSHCOMPLETIONDIR="$(ZSHCOMPLETIONDIR)" FISHCOMPLETIONDIR="$(FISHCOMPLETIONDIR)"

help:
	@echo "orientationd — targets:"
	@echo "  make run      install missing run prerequisites (apt), build, then run the demo:"
	@echo "                a private session bus, orientationd with the simulated sensor and"
	@echo "                'orientationctl monitor' until Ctrl-C (everything is stopped after)"
	@echo "  make demo     the same with the GTK 4 demo app (examples/gtk-demo) instead of the"
	@echo "                monitor, until its window closes or Ctrl-C (needs a display)"
	@echo "  make screenshots  the demo app under Xvfb, driven by a replay sensor through the"
	@echo "                four orientations: a PNG per page and orientation in docs/screenshots/"
	@echo "  make test     install missing build and test prerequisites (apt), build every"
	@echo "                test target and run all tests (swift test), then each fuzz target 5 s;"
	@echo "                fails if they leave anything in /tmp or the working tree"
	@echo "  make build    debug build of orientationd and orientationctl (.build/debug)"
	@echo "  make release  release build with the Swift runtime linked statically (.build/release)"
	@echo "  make score    scripts/score.sh: score the orientation engine on the labelled traces"
	@echo "  make bench    release build, then benchmarks/compare/compare.py: orientationd and"
	@echo "                iio-sensor-proxy side by side under umockdev, table to BENCHMARKS.md"
	@echo "                (scripts/bench-daemon.sh: orientationd alone, with binary sizes)"
	@echo "  make soak     10 minutes (SOAK_SECONDS) of client churn, lock toggles, hotplug and a"
	@echo "                bus restart against the release daemon: fails if memory, descriptors or"
	@echo "                timers grew or a call misbehaved (benchmarks/soak/soak.py; BENCHMARKS.md)"
	@echo "  make order-file  regenerate scripts/orientationd.order, the link order of the"
	@echo "                release build (callgrind through the benchmark's paths)"
	@echo "  make fuzz     scripts/fuzz.sh: build the libFuzzer targets (fuzz/) and run each"
	@echo "                for FUZZ_SECONDS (default 10): make fuzz FUZZ_SECONDS=600"
	@echo "  make clean    remove .build"
	@echo "  make install  release build, then install the daemon, orientationctl, the D-Bus,"
	@echo "                polkit, udev and systemd files and man pages (PREFIX=/usr/local,"
	@echo "                DESTDIR=; see README, \"Installing on a real machine\")"
	@echo "  make uninstall  remove what make install laid down (same PREFIX and DESTDIR)"
	@echo "  make deb      the Debian packages (dpkg-buildpackage -b; scripts/deb.sh), checked"
	@echo "                by lintian: orientationd_<version>_<arch>.deb and the rest, here"
	@echo "  make deb-test make deb, then install the package into a minimal Debian 12"
	@echo "                (debootstrap, cached), run it from the installed files, purge it"
	@echo "                and check that nothing is left; boot a copy with systemd and check"
	@echo "                the daemon under its unit (scripts/deb-test.sh; CI runs it)"
	@echo "  make stress   the fault campaigns (Tests/IntegrationTests/Stress*) at full counts;"
	@echo "                make test runs them with short counts"
	@echo "  make fresh-test  make test from a clean clone in a minimal Debian 12 root"
	@echo "                (debootstrap --variant=minbase, cached; systemd-nspawn), for"
	@echo "                changes to the prerequisites"
	@echo "  make asan     scripts/asan.sh: the integration tests with orientationd built with"
	@echo "                AddressSanitizer/LeakSanitizer; any report fails"

# The demo runs as a job of its own (set -m: its own process group, given the
# terminal), so Ctrl-C reaches the demo, which stops everything and exits 0, and not
# make, which would report the interrupt as an error. `; exit` keeps bash from
# exec'ing the script in place of itself (which would skip job control).
# Whatever ends make ends the demo, kill -9 included: setpriv's --pdeathsig turns
# make's death into a SIGTERM for the bash that runs the job, and that bash's death
# into a SIGTERM for the demo, which then stops everything it started. (A SIGTERM to
# make alone would reach that bash anyway, GNU make passing it on to its children; a
# SIGKILL leaves them running.)
DEMO_JOB = exec setpriv --pdeathsig TERM bash -c 'set -m; setpriv --pdeathsig TERM scripts/demo.sh "$$@"; exit $$?' demo
run:
	scripts/prerequisites.sh run
	$(SWIFT_BUILD)
	@$(DEMO_JOB)

demo:
	scripts/prerequisites.sh demo
	$(SWIFT_BUILD)
	$(SWIFT_BUILD) --package-path examples/gtk-demo
	@$(DEMO_JOB) gtk

screenshots:
	scripts/prerequisites.sh demo
	$(SWIFT_BUILD)
	$(SWIFT_BUILD) --package-path examples/gtk-demo
	scripts/screenshots.sh

# The build, the tests and the fuzzers, checked for what they leave behind in /tmp and
# in the working tree (scripts/no-leftovers.sh).
test:
	scripts/prerequisites.sh test
	scripts/no-leftovers.sh bash -c '$(SWIFT) build --build-tests && $(SWIFT) test --skip DevSetTests && FUZZ_SECONDS=5 scripts/fuzz.sh'

build:
	scripts/prerequisites.sh run
	$(SWIFT_BUILD)

release:
	scripts/prerequisites.sh run
	$(SWIFT_BUILD) $(RELEASE_FLAGS)

score:
	scripts/prerequisites.sh run
	bash scripts/score.sh

bench:
	scripts/prerequisites.sh test
	$(SWIFT_BUILD) $(RELEASE_FLAGS)
	benchmarks/compare/compare.py --swift "$(SWIFT)"

# Ten minutes of churn against the release daemon under umockdev (benchmarks/soak/soak.py):
# fails if memory, descriptors or timers grew or a call misbehaved; figures to BENCHMARKS.md.
SOAK_SECONDS ?= 600
soak:
	scripts/prerequisites.sh test
	$(SWIFT_BUILD) $(RELEASE_FLAGS)
	benchmarks/soak/soak.py --seconds $(SOAK_SECONDS) --bin-dir "$$($(SWIFT_BUILD) $(RELEASE_FLAGS) --show-bin-path)"

# Regenerate scripts/orientationd.order (the link order of the release build) from a
# callgrind run of the daemon through the benchmark's paths, then link again with it
# (SwiftPM does not see the list change, so the executables are removed first).
order-file:
	scripts/prerequisites.sh bench
	$(SWIFT_BUILD) $(RELEASE_FLAGS)
	benchmarks/compare/order_file.py
	rm -f "$$($(SWIFT_BUILD) $(RELEASE_FLAGS) --show-bin-path)"/{orientationd,orientationctl,orientationd-bench}
	$(SWIFT_BUILD) $(RELEASE_FLAGS)

fuzz:
	scripts/prerequisites.sh run
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

clean:
	rm -rf .build

install:
	@$(INSTALL_VARS) scripts/install.sh install

uninstall:
	@$(INSTALL_VARS) scripts/install.sh uninstall

deb:
	scripts/prerequisites.sh deb
	scripts/deb.sh

deb-test:
	scripts/prerequisites.sh deb-test
	scripts/deb.sh
	scripts/deb-test.sh

# Fault campaigns at full counts (bounded: minutes); `make test` runs them short.
.PHONY: stress asan fresh-test
stress:
	scripts/prerequisites.sh test
	$(SWIFT) build --build-tests
	ORIENTATIOND_STRESS=full $(SWIFT) test --skip-build --filter 'IntegrationTests\.Stress'

# `make test` from a clean clone of HEAD in a minimal Debian 12 (debootstrap, cached),
# under systemd-nspawn with the toolchain bind-mounted; not part of `make test`.
fresh-test:
	scripts/fresh-test.sh

asan:
	scripts/prerequisites.sh test
	SWIFT="$(SWIFT)" scripts/asan.sh
