import Foundation
import Testing

/// What a test needs beyond the built package, so a contributor without root (or in a hurry) can
/// run what their machine allows: `make check` runs every test these traits do not skip, as a
/// normal user; `make test` runs them all, as root (README, "Which target needs what").
extension Tag {
    /// Makes network namespaces, veth pairs or firewall rules (`ip netns`, iptables, tc).
    @Tag public static var namespaces: Self
    /// Runs a real peer of another project: Janus, aiortc, coturn or Chromium.
    @Tag public static var realPeer: Self
    /// Takes more than about ten seconds, or starts `parley` processes.
    @Tag public static var slow: Self
}

public enum TestHost {
    /// Root makes namespaces, raises limits and scheduling priorities; a normal user cannot.
    public static let isRoot = geteuid() == 0
    /// Set by `make check`: the quick, unprivileged subset.
    public static let isQuickCheck = ProcessInfo.processInfo.environment["PARLEY_QUICK_CHECK"] != nil
}

extension Trait where Self == ConditionTrait {
    /// Runs only as root, where `make test` runs; a normal user's `make check` skips it.
    public static var needsRoot: Self {
        .enabled(if: TestHost.isRoot, "needs root (network namespaces, limits or priorities): run by make test")
    }

    /// Skipped by `make check`, which stays under three minutes; `make test` runs it.
    public static var notInQuickCheck: Self {
        .disabled(if: TestHost.isQuickCheck, "slow: run by make test, not make check")
    }
}
