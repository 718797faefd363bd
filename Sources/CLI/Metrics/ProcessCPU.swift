import Foundation
import Glibc

/// The CPU this process has used, and how much it may use: the cores it may run on (its
/// affinity) and, under a CPU quota (a container's limit, `systemd-run -p CPUQuota=`, a cgroup's
/// `cpu.max` or `cpu.cfs_quota_us`), the quota in cores.
enum ProcessCPU {
    /// User and system CPU seconds of the whole process so far (getrusage).
    static func seconds() -> Double? {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    /// Cores the process may use: the fewer of its affinity's and its cgroups' quota.
    static func availableCores() -> Double {
        let affinity = Double(max(1, ProcessInfo.processInfo.activeProcessorCount))
        guard let cgroups = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return affinity }
        return min(affinity, quotaCores(cgroups: cgroups, read: { try? String(contentsOfFile: $0, encoding: .utf8) }) ?? affinity)
    }

    /// The tightest CPU quota in cores over the process's cgroup and its parents, from
    /// `/proc/self/cgroup`'s text; nil without one. cgroup v2 (`0::/path`, `cpu.max`: `QUOTA
    /// PERIOD` or `max PERIOD`) and v1 (`N:cpu,cpuacct:/path`, `cpu.cfs_quota_us`, -1 for none).
    static func quotaCores(cgroups: String, read: (String) -> String?) -> Double? {
        var tightest: Double?
        func note(_ cores: Double) { tightest = min(tightest ?? cores, cores) }
        for line in cgroups.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            for directory in ancestors(String(fields[2])) {
                if fields[0] == "0", controllers.isEmpty {
                    let parts = read("/sys/fs/cgroup\(directory)/cpu.max")?.split(whereSeparator: \.isWhitespace) ?? []
                    if parts.count == 2, let quota = Double(parts[0]), let period = Double(parts[1]), quota > 0, period > 0 { note(quota / period) }
                } else if controllers.contains("cpu") {
                    for mount in ["cpu", fields[1]].map(String.init) {
                        let base = "/sys/fs/cgroup/\(mount)\(directory)"
                        guard let quota = read(base + "/cpu.cfs_quota_us").flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
                              let period = read(base + "/cpu.cfs_period_us").flatMap({ Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
                        else { continue }
                        if quota > 0, period > 0 { note(quota / period) }
                        break
                    }
                }
            }
        }
        return tightest
    }

    /// `/a/b` → `/a/b`, `/a`, `` (the root, whose files sit at the mount itself).
    private static func ancestors(_ path: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init)
        var paths: [String] = []
        while !parts.isEmpty {
            paths.append("/" + parts.joined(separator: "/"))
            parts.removeLast()
        }
        return paths + [""]
    }
}
