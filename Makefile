# Parley: `make demo` and `make test` install what is missing, build, then run.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
PKGCONFIG_SHIMS := $(CURDIR)/.build/pkgconfig
export PKG_CONFIG_PATH := $(PKGCONFIG_SHIMS)$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
FUZZ_SECONDS ?= 60
SOAK_MINUTES ?= 10
PARLEY := .build/debug/parley

.PHONY: all bootstrap build check release install uninstall package package-test test demo fuzz sanitize bench soak clean distclean

all: build

bootstrap:
	@scripts/bootstrap
	@scripts/pkgconfig-shims $(PKGCONFIG_SHIMS)
	@scripts/build-tree-moved

build: bootstrap
	swift build

# The quick subset a contributor runs without root: every Swift test that needs no root, network
# namespace or real peer and is not slow (Tests/TestSupport/TestRequirements.swift), in under
# three minutes. Serial, as `make test`: in parallel on two cores the media clocks and timers of
# one suite starve another's. `make test` stays the whole truth.
check:
	@scripts/bootstrap --build-only
	@scripts/pkgconfig-shims $(PKGCONFIG_SHIMS)
	scripts/shellcheck-all
	swift build --build-tests
	PARLEY_QUICK_CHECK=1 swift test --skip-build --no-parallel

# Serial: the interop suites run real peers (Janus, aiortc, coturn) and media clocks; run side by
# side on two cores they starve each other and time out. Serial takes about a minute longer.
# A normal user runs both as root of a user namespace of its own (scripts/as-namespace-root):
# every namespace test runs; the few that need the host's root (real-time priorities, a cgroup
# quota) say they are skipped.
test: build
	scripts/as-namespace-root swift test --no-parallel
	scripts/as-namespace-root scripts/run-e2e $(PARLEY)

# A release build installed under PREFIX (default /usr/local; DESTDIR stages it): the binary, a
# manual page made from the commands' help, shell completions, the examples and the docs
# (scripts/install). The Swift runtime is linked into the binary (--static-swift-stdlib), so it
# runs where no Swift toolchain is: it needs only the Debian packages of deploy/runtime-packages.
PREFIX ?= /usr/local
RELEASE_PARLEY := .build/release/parley
MANPAGE := .build/manual/parley.1
# The manual comes from the release binary's own help, by swift-argument-parser's generator built
# in debug: its plugin would build parley in release a second time, with its own flags.
release: bootstrap
	swift build -c release --product parley --static-swift-stdlib
	swift build --product generate-manual
	mkdir -p $(dir $(MANPAGE))
	.build/debug/generate-manual $(RELEASE_PARLEY) -o $(dir $(MANPAGE))

install: release
	PREFIX=$(PREFIX) scripts/install install $(RELEASE_PARLEY) $(MANPAGE)

# The Debian package, .build/package/parley_VERSION_ARCH.deb (scripts/package): what `make
# install` puts under /usr, with Depends generated from the binary's libraries.
package: release
	scripts/package $(RELEASE_PARLEY) $(MANPAGE) .build/package

# Installs that package where there is no Swift toolchain and no build tree (a mount namespace
# hides them, no network), then runs it (scripts/package-test). Not in `make test`: the release
# build alone takes minutes on two cores.
package-test: package
	scripts/package-test .build/package/parley_*.deb

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

# Removes what was built and keeps what was fetched (the dependencies' checkouts), so a build
# after it works offline. distclean removes everything.
clean:
	swift package clean
	if [ -d Fuzz/.build ]; then cd Fuzz && swift package clean; fi

distclean:
	rm -rf .build Fuzz/.build
