import Foundation
import ThumbdCore

/// The memory this process may use as the system says it: the machine's, and the memory
/// limit of the control group it runs in (a container's `--memory`, a pod's
/// `resources.limits.memory`). Read from files under `root` ("/" in production; tests give a
/// folder holding `proc/` and `sys/fs/cgroup/`).
public struct SystemMemory: Sendable, Equatable {
    /// Where a cgroup limit was read.
    public enum Source: String, Sendable, Equatable {
        case cgroupV2 = "cgroup v2 memory.max"
        case cgroupV1 = "cgroup v1 memory.limit_in_bytes"
    }

    /// `MemTotal` of `/proc/meminfo`; nil when unreadable.
    public var machineBytes: Int?
    /// The lowest limit of the process's cgroup and its ancestors; nil when none is set.
    public var cgroupLimit: (bytes: Int, source: Source)?

    public init(machineBytes: Int?, cgroupLimit: (bytes: Int, source: Source)? = nil) {
        self.machineBytes = machineBytes
        self.cgroupLimit = cgroupLimit
    }

    public static func == (a: SystemMemory, b: SystemMemory) -> Bool {
        a.machineBytes == b.machineBytes && a.cgroupLimit?.bytes == b.cgroupLimit?.bytes
            && a.cgroupLimit?.source == b.cgroupLimit?.source
    }

    /// The limit that applies and what set it: the cgroup's when it is below the machine's
    /// memory (v1 reports "no limit" as a number near 2^63), else the machine's.
    public var effective: (bytes: Int, origin: String)? {
        if let limit = cgroupLimit, machineBytes.map({ limit.bytes < $0 }) ?? true {
            return (limit.bytes, limit.source.rawValue)
        }
        return machineBytes.map { ($0, "the machine's memory (/proc/meminfo)") }
    }

    public static func read(root: String = "/") -> SystemMemory {
        let base = root.hasSuffix("/") ? String(root.dropLast()) : root
        func text(_ path: String) -> String? { try? String(contentsOfFile: base + path, encoding: .utf8) }
        let machine = text("/proc/meminfo").flatMap(meminfoTotal)
        let groups = text("/proc/self/cgroup").map(cgroupPaths) ?? (v2: nil, v1: nil)
        if let path = groups.v2, let bytes = lowestLimit(from: path, file: "memory.max", mount: "/sys/fs/cgroup", read: text) {
            return SystemMemory(machineBytes: machine, cgroupLimit: (bytes, .cgroupV2))
        }
        if let path = groups.v1, let bytes = lowestLimit(from: path, file: "memory.limit_in_bytes", mount: "/sys/fs/cgroup/memory", read: text) {
            return SystemMemory(machineBytes: machine, cgroupLimit: (bytes, .cgroupV1))
        }
        return SystemMemory(machineBytes: machine)
    }

    /// `MemTotal:  24600000 kB` in bytes.
    static func meminfoTotal(_ text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix("MemTotal:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kib = Int(fields[1]) else { return nil }
            return kib * 1024
        }
        return nil
    }

    /// The process's cgroup path in the v2 hierarchy (`0::/path`) and in v1's memory
    /// controller (`N:memory:/path`, possibly beside other controllers).
    static func cgroupPaths(_ text: String) -> (v2: String?, v1: String?) {
        var v2: String?, v1: String?
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { v2 = String(fields[2]) }
            if fields[1].split(separator: ",").contains("memory") { v1 = String(fields[2]) }
        }
        return (v2, v1)
    }

    /// The lowest numeric `file` on the way from the group's folder up to the mount's root.
    /// Inside a container the mount's root is the container's own group while the path still
    /// names it from the host's root, so a folder that does not exist is skipped.
    static func lowestLimit(from path: String, file: String, mount: String, read: (String) -> String?) -> Int? {
        var lowest: Int?
        var components = path.split(separator: "/").map(String.init)
        while true {
            let folder = components.isEmpty ? mount : mount + "/" + components.joined(separator: "/")
            if let value = read(folder + "/" + file).flatMap(limitValue) {
                lowest = min(lowest ?? value, value)
            }
            if components.isEmpty { return lowest }
            components.removeLast()
        }
    }

    /// A limit file's number; nil for `max` (v2's "no limit") and for what is not a number.
    static func limitValue(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int(trimmed), value > 0 else { return nil }
        return value
    }
}
