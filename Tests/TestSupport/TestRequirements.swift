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
    /// Root makes namespaces, veth pairs and firewall rules: the host's root, or a normal user
    /// mapped to root in a user namespace of its own (`scripts/as-namespace-root`, which `make test`
    /// runs the tests under when it is not root).
    public static let isRoot = geteuid() == 0
    /// Only the host's root raises limits and takes real-time priorities: root inside a user
    /// namespace cannot. The initial user namespace maps every id to itself.
    public static let isHostRoot = isRoot && isInitialUserNamespace
    /// Set by `make check`: the quick, unprivileged subset.
    public static let isQuickCheck = ProcessInfo.processInfo.environment["PARLEY_QUICK_CHECK"] != nil

    private static var isInitialUserNamespace: Bool {
        guard let map = try? String(contentsOfFile: "/proc/self/uid_map", encoding: .utf8) else { return false }
        return map.split(whereSeparator: \.isWhitespace) == ["0", "0", "4294967295"]
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs only as root, where `make test` runs (or as namespace root); a normal user's
    /// `make check` skips it.
    public static var needsRoot: Self {
        .enabled(if: TestHost.isRoot, "needs root (network namespaces): run by make test")
    }

    /// Runs only as the host's root: real-time priorities and raised limits, which a user
    /// namespace does not grant.
    public static var needsHostRoot: Self {
        .enabled(if: TestHost.isHostRoot, "needs the host's root (real-time priorities): run by make test as root")
    }

    /// Skipped by `make check`, which stays under three minutes; `make test` runs it.
    public static var notInQuickCheck: Self {
        .disabled(if: TestHost.isQuickCheck, "slow: run by make test, not make check")
    }
}
