import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// This build's `thumbd serve` as a process of its own on a free loopback port, for the tests
/// that measure the server's own CPU time and memory (which a server inside the test runner
/// would share with every other suite) or that need its children apart from the runner's.
public final class ThumbdProcess: @unchecked Sendable {
    public let pid: pid_t
    public let port: Int
    private let log: String

    public static var binary: String { PackageRoot.url.appendingPathComponent(".build/debug/thumbd").path }

    /// Starts it with `arguments` after `serve --host 127.0.0.1 --port 0` and `environment`
    /// added to this process's; returns once it listens (fails after 60 s or when it exits).
    public init(arguments: [String], environment: [String: String] = [:]) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-\(UUID().uuidString).log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        cleanSignals(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let argv = ([Self.binary, "serve", "--host", "127.0.0.1", "--port", "0"] + arguments).map { strdup($0) } + [nil]
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let env = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + env).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, Self.binary, &actions, &attributes, argv, env)
        guard spawned == 0 else { throw SpawnFailed(executable: Self.binary, code: spawned) }
        self.pid = pid
        var found: Int?
        let deadline = Date().addingTimeInterval(60)
        while found == nil && Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on 127.0.0.1:") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            } else if kill(pid, 0) != 0 {
                break
            } else {
                usleep(50_000)
            }
        }
        guard let found else {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw RawHTTPClient.ClientError(description: "thumbd did not start: \(said)")
        }
        port = found
    }

    deinit { stop() }

    /// What it wrote to standard error so far.
    public var output: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    public func stop() {
        guard kill(pid, 0) == 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        unlink(log)
    }

    /// CPU seconds (user and system) `pid` used so far, from /proc.
    public static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Its CPU seconds so far.
    public var cpuSeconds: Double { Self.cpuSeconds(pid) }

    /// Its resident memory now, from /proc/PID/statm.
    public var residentBytes: Int {
        guard let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    /// Its children's pids now (its renderers).
    public var children: [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { pid_t($0) }.filter { candidate in
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && pid_t(fields[1]) == pid
        }
    }
}
