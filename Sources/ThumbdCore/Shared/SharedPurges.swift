import Clocks
import Foundation
import Locking
import Logging
import Synchronization

/// Purges that reach every replica through the shared store. The replica that is asked
/// applies the purge, then publishes a record (`purges/<time>-<random>`, its body the purge's
/// target as the app wrote it); every replica lists the records every `interval` seconds
/// and at start, applies each it has not applied yet (kept in a file beside its disk tier,
/// so one that was down during a purge applies it when it comes back, before it serves), and
/// confirms it (`acks/<record>/<replica>`). Replicas say they are alive with a heartbeat
/// object (`replicas/<replica>`), so the purge's answer can name those that have not
/// confirmed yet. Records older than `retention` are deleted with their confirmations.
package final class SharedPurges: Sendable {
    package enum Defaults {
        /// `cache.shared.purge_interval`: how often the records are listed; a purge reaches
        /// every running replica within about this.
        package static let interval = 2.0
        /// A replica's heartbeat is written this often...
        package static let heartbeat = 30.0
        /// ...and it counts as alive this long after the last one.
        package static let aliveFor = 90.0
        /// Records (and their confirmations) are kept this long.
        package static let retention = 86_400
    }

    /// Which live replicas have applied a purge.
    package struct Confirmations: Sendable, Equatable {
        package var confirmed: [String]
        package var pending: [String]
    }

    package let store: SharedStore
    /// This replica's name in the store.
    package let replica: String
    package let interval: Double
    private let applied: Locked<Set<String>>
    private let appliedFile: String?
    private let wallClock: any WallClock
    private let logger: Logger
    private let stopped = Atomic<Bool>(false)

    /// `stateFolder`: where this replica keeps its name and the records it applied (its disk
    /// tier's folder); nil: kept in memory only.
    package init(store: SharedStore, stateFolder: String?, interval: Double = Defaults.interval,
                 wallClock: any WallClock, logger: Logger) {
        self.store = store
        self.interval = interval
        self.wallClock = wallClock
        self.logger = logger
        replica = Self.replicaName(stateFolder: stateFolder)
        appliedFile = stateFolder.map { $0 + "/shared-purges-applied" }
        let lines = appliedFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
        applied = Locked(Set(lines.split(separator: "\n").map(String.init)))
    }

    /// The name kept in `stateFolder` (made the first time: the host name and a random part),
    /// so a restarted replica confirms under the same name.
    static func replicaName(stateFolder: String?) -> String {
        let file = stateFolder.map { $0 + "/shared-replica" }
        if let file, let kept = try? String(contentsOfFile: file, encoding: .utf8),
           let name = kept.split(separator: "\n").first, Self.isName(name) {
            return String(name)
        }
        let host = ProcessInfo.processInfo.hostName.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        let name = String(host.prefix(40)) + (host.isEmpty ? "" : "-") + Self.randomHex(6)
        if let file { try? (name + "\n").write(toFile: file, atomically: true, encoding: .utf8) }
        return name
    }

    private static func isName(_ text: Substring) -> Bool {
        !text.isEmpty && text.count <= 64 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    private static func randomHex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }

    /// Publishes a purge this replica has applied; returns the record's name, or nil when the
    /// store did not take it (the other replicas then keep what they hold).
    package func publish(_ text: String) -> String? {
        // Names sort by time (ten digits last until the year 2286).
        let seconds = String(wallClock.unixSeconds())
        let record = String(repeating: "0", count: max(0, 10 - seconds.count)) + seconds + "-" + Self.randomHex(8)
        guard case .answered(let response) = store.ask("purges/" + record, { client throws(S3Error) in
            try client.put(store.prefix + "purges/" + record, body: Array(text.utf8))
        }), response.status == 200 else { return nil }
        markApplied(record)
        return record
    }

    /// Applies every record not applied yet, oldest first (`apply` gets its text); false when
    /// the store could not be listed.
    @discardableResult
    package func catchUp(apply: (String) -> Void) -> Bool {
        guard let records = try? store.list(under: "purges/").get() else { return false }
        let now = wallClock.unixSeconds()
        var present = Set<String>()
        for object in records.sorted(by: { $0.key < $1.key }) {
            let record = String(object.key.dropFirst(store.prefix.count + "purges/".count))
            guard !record.isEmpty, !record.contains("/") else { continue }
            if object.lastModified > 0, now - object.lastModified > Defaults.retention {
                expire(record)
                continue
            }
            present.insert(record)
            if applied.withLock({ $0.contains(record) }) { continue }
            guard case .answered(let response) = store.ask(object.key, { client throws(S3Error) in
                try client.object(object.key, maxBytes: 64 << 10)
            }) else { return false }
            // A record deleted meanwhile has expired: nothing to apply.
            if response.status == 200 {
                apply(String(decoding: response.body, as: UTF8.self))
                logger.info("applied a purge published by another replica: \(String(decoding: response.body, as: UTF8.self))")
            }
            markApplied(record)
        }
        // Forget what is no longer listed, so the file stays as small as the record set.
        let forgotten = applied.withLock { set -> Bool in
            let before = set.count
            set.formIntersection(present)
            return set.count != before
        }
        if forgotten { saveApplied() }
        return true
    }

    /// Runs `catchUp` every `interval` seconds and the heartbeat, on a thread of its own,
    /// until `leave`.
    package func follow(apply: @escaping @Sendable (String) -> Void) {
        let thread = Thread { [self] in
            var lastHeartbeat = -Double.infinity
            while !stopped.load(ordering: .relaxed) {
                let now = SystemClock.now()
                if now - lastHeartbeat >= Defaults.heartbeat, heartbeat() { lastHeartbeat = now }
                catchUp(apply: apply)
                Thread.sleep(forTimeInterval: interval)
            }
        }
        thread.name = "thumbd-shared-purges"
        thread.start()
    }

    /// Stops following and removes the heartbeat: a replica that leaves is not waited for.
    package func leave() {
        stopped.store(true, ordering: .relaxed)
        _ = store.ask("replicas/" + replica) { client throws(S3Error) in try client.delete(store.prefix + "replicas/" + replica) }
    }

    /// Tells the store this replica is alive; false when it did not take it.
    @discardableResult
    package func heartbeat() -> Bool {
        if case .answered(let response) = store.ask("replicas/" + replica, { client throws(S3Error) in
            try client.put(store.prefix + "replicas/" + replica, body: [])
        }), response.status == 200 { return true }
        return false
    }

    /// Which live replicas have confirmed `record`, waiting up to `seconds` for all of them.
    package func confirmations(of record: String, waitingUpTo seconds: Double) -> Confirmations {
        let deadline = SystemClock.now() + seconds
        var result = Confirmations(confirmed: [replica], pending: [])
        while true {
            let since = wallClock.unixSeconds() - Int(Defaults.aliveFor)
            let replicas: [S3ListPage.Object] = (try? store.list(under: "replicas/").get()) ?? []
            let acks: [S3ListPage.Object] = (try? store.list(under: "acks/" + record + "/").get()) ?? []
            let alive = replicas
                .filter { $0.lastModified == 0 || $0.lastModified >= since }
                .map { String($0.key.dropFirst(store.prefix.count + "replicas/".count)) }
            let confirmed = acks
                .map { String($0.key.dropFirst(store.prefix.count + "acks/".count + record.count + 1)) }
            let done = Set(confirmed).union([replica])
            result = Confirmations(confirmed: done.sorted(), pending: Set(alive).subtracting(done).sorted())
            if result.pending.isEmpty || SystemClock.now() >= deadline { return result }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    private func markApplied(_ record: String) {
        let added = applied.withLock { $0.insert(record).inserted }
        if added, let appliedFile {
            if let handle = FileHandle(forWritingAtPath: appliedFile) {
                handle.seekToEndOfFile()
                handle.write(Data((record + "\n").utf8))
                try? handle.close()
            } else {
                try? (record + "\n").write(toFile: appliedFile, atomically: true, encoding: .utf8)
            }
        }
        _ = store.ask("acks/" + record + "/" + replica) { client throws(S3Error) in
            try client.put(store.prefix + "acks/" + record + "/" + replica, body: [])
        }
    }

    private func saveApplied() {
        guard let appliedFile else { return }
        let text = applied.withLock { $0.sorted().map { $0 + "\n" }.joined() }
        try? text.write(toFile: appliedFile, atomically: true, encoding: .utf8)
    }

    private func expire(_ record: String) {
        for ack in (try? store.list(under: "acks/" + record + "/").get()) ?? [] {
            _ = store.ask(ack.key) { client throws(S3Error) in try client.delete(ack.key) }
        }
        _ = store.ask("purges/" + record) { client throws(S3Error) in try client.delete(store.prefix + "purges/" + record) }
    }
}
