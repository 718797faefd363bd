# Parley: `make demo` and `make test` install what is missing, build, then run.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
PKGCONFIG_SHIMS := $(CURDIR)/.build/pkgconfig
export PKG_CONFIG_PATH := $(PKGCONFIG_SHIMS)$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
FUZZ_SECONDS ?= 60
SOAK_MINUTES ?= 10
PARLEY := .build/debug/parley

.PHONY: all bootstrap build check install uninstall test demo fuzz sanitize bench soak clean

all: build

bootstrap:
	@scripts/bootstrap
	@scripts/pkgconfig-shims $(PKGCONFIG_SHIMS)

build: bootstrap
	swift build

# The quick subset a contributor runs without root: every Swift test that needs no root, network
# namespace or real peer and is not slow (Tests/TestSupport/TestRequirements.swift), in under
# three minutes. Serial, as `make test`: in parallel on two cores the media clocks and timers of
# one suite starve another's. `make test` stays the whole truth.
check:
	@scripts/bootstrap --build-only
	@scripts/pkgconfig-shims $(PKGCONFIG_SHIMS)
	swift build --build-tests
	PARLEY_QUICK_CHECK=1 swift test --skip-build --no-parallel

# Serial: the interop suites run real peers (Janus, aiortc, coturn) and media clocks; run side by
# side on two cores they starve each other and time out. Serial takes about a minute longer.
test: build
	swift test --no-parallel
	scripts/run-e2e $(PARLEY)

# A release build installed under PREFIX (default /usr/local; DESTDIR stages it): the binary, a
# manual page made from the commands' help, shell completions, the examples (scripts/install).
# The binary finds the Swift runtime where it was built (/opt/swift), as `make build`'s does.
PREFIX ?= /usr/local
install: bootstrap
	swift package plugin generate-manual --configuration release
	swift build -c release --product parley
	PREFIX=$(PREFIX) scripts/install install .build/release/parley .build/plugins/GenerateManual/outputs/CLI/parley.1

uninstall:
	PREFIX=$(PREFIX) scripts/install uninstall

demo: build
	@scripts/demo $(PARLEY)

# Benchmarks of a release build (docs/performance.md): prints a table, writes bench/results/*.json,
# never fails on timing. BENCH_QUICK=1 for a short run that only checks the harness.
bench: build
	swift build -c release --product parley
	bench/run .build/release/parley

# The soak (docs/performance.md, "Soak"): 50 calls held SOAK_MINUTES through loss, jitter and a
# network change every 30 s, on a release build; prints the figures, fails when a goal is missed.
soak: bootstrap
	swift build -c release --product parley
	scripts/soak .build/release/parley $(SOAK_MINUTES)

fuzz: bootstrap
	@scripts/fuzz $(FUZZ_SECONDS)

# The unit and loopback suites under ThreadSanitizer, then AddressSanitizer (docs/hardening.md).
sanitize: bootstrap
	@scripts/sanitize

clean:
	rm -rf .build Fuzz/.build
