import Clocks
import Foundation
import Locking
import Logging

/// Purges that reach every replica through the shared store (`SharedLayout`). The replica
/// that is asked applies the purge, then publishes its `PurgeRecord` (`purges/<time>-<random>`);
/// every replica reads the records it has not applied yet (`PurgeFollower`: at start, then
/// every `interval` seconds), applies each (kept in a file beside its disk tier, so one that
/// was down during a purge applies it when it comes back, before it serves), and confirms it
/// (`acks/<record>/<replica>`). Replicas say they are alive with a heartbeat object
/// (`replicas/<replica>`), so the purge's outcome can name those that have not confirmed yet.
/// Records older than `retention` are deleted with their confirmations. Blocking.
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
        /// How often a purge's outcome looks for the confirmations it waits for.
        package static let confirmationPoll = 0.2
    }

    package let store: SharedStore
    package let interval: Double
    /// Where this replica keeps its name and the records it applied; nil: in memory only.
    private let stateFolder: String?
    /// Read from `stateFolder` when first needed (never while the app is being built).
    private let kept = Locked<Kept?>(nil)
    private let clock: any MonotonicClock
    private let wallClock: any WallClock
    private let logger: Logger

    /// What this replica keeps of the exchange: its name, and the records it applied.
    private struct Kept {
        var replica: String
        var applied: Set<String>
    }

    /// `stateFolder`: where this replica keeps its name and the records it applied (its disk
    /// tier's folder); nil: kept in memory only.
    package init(store: SharedStore, stateFolder: String?, interval: Double = Defaults.interval,
                 clock: any MonotonicClock, wallClock: any WallClock, logger: Logger) {
        self.store = store
        self.interval = interval
        self.stateFolder = stateFolder
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
    }

    /// This replica's name in the store.
    package var replica: String { withKept { $0.replica } }

    private var appliedFile: String? { stateFolder.map { $0 + "/shared-purges-applied" } }

    /// `body` on what is kept, read from the state folder the first time.
    private func withKept<T>(_ body: (inout Kept) -> T) -> T {
        kept.withLock { kept in
            var state = kept ?? Kept(replica: Self.replicaName(stateFolder: stateFolder),
                                     applied: Set(((appliedFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }) ?? "")
                                        .split(separator: "\n").map(String.init)))
            defer { kept = state }
            return body(&state)
        }
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
    package func publish(_ purge: PurgeRecord) -> String? {
        // Names sort by time (ten digits last until the year 2286).
        let seconds = String(wallClock.unixSeconds())
        let record = String(repeating: "0", count: max(0, 10 - seconds.count)) + seconds + "-" + Self.randomHex(8)
        let key = store.layout.key(record, in: SharedLayout.purges)
        guard case .answered(let response) = store.ask(key, { client throws(S3Error) in
            try client.put(key, body: purge.bytes)
        }), response.status == 200 else { return nil }
        markApplied(record)
        return record
    }

    /// Applies every record not applied yet, oldest first; false when the store could not be
    /// listed.
    @discardableResult
    package func catchUp(apply: (PurgeRecord) -> Void) -> Bool {
        guard let records = try? store.list(SharedLayout.purges).get() else { return false }
        let now = wallClock.unixSeconds()
        var present = Set<String>()
        for object in records.sorted(by: { $0.key < $1.key }) {
            guard let record = store.layout.name(of: object.key, in: SharedLayout.purges) else { continue }
            if object.lastModified > 0, now - object.lastModified > Defaults.retention {
                expire(record)
                continue
            }
            present.insert(record)
            if withKept({ $0.applied.contains(record) }) { continue }
            guard case .answered(let response) = store.ask(object.key, { client throws(S3Error) in
                try client.object(object.key, maxBytes: 64 << 10)
            }) else { return false }
            // A record deleted meanwhile has expired, and one no build wrote is ignored.
            if response.status == 200, let purge = PurgeRecord(bytes: response.body) {
                apply(purge)
                logger.info("applied a purge published by another replica: \(purge.target)")
            }
            markApplied(record)
        }
        // Forget what is no longer listed, so the file stays as small as the record set.
        let forgotten = withKept { kept -> Bool in
            let before = kept.applied.count
            kept.applied.formIntersection(present)
            return kept.applied.count != before
        }
        if forgotten { saveApplied() }
        return true
    }

    /// Removes the heartbeat: a replica that leaves is not waited for.
    package func leave() {
        let key = store.layout.key(replica, in: SharedLayout.replicas)
        _ = store.ask(key) { client throws(S3Error) in try client.delete(key) }
    }

    /// Tells the store this replica is alive; false when it did not take it.
    @discardableResult
    package func heartbeat() -> Bool {
        let key = store.layout.key(replica, in: SharedLayout.replicas)
        if case .answered(let response) = store.ask(key, { client throws(S3Error) in try client.put(key, body: []) }),
           response.status == 200 { return true }
        return false
    }

    /// Which live replicas have confirmed `record`, waiting up to `seconds` of the clock for
    /// all of them.
    package func confirmations(of record: String, waitingUpTo seconds: Double) -> PurgeOutcome.Replicas {
        let deadline = clock.now() + seconds
        while true {
            let since = wallClock.unixSeconds() - Int(Defaults.aliveFor)
            let replicas = (try? store.list(SharedLayout.replicas).get()) ?? []
            let acks = (try? store.list(SharedLayout.acks(of: record)).get()) ?? []
            let alive = replicas
                .filter { $0.lastModified == 0 || $0.lastModified >= since }
                .compactMap { store.layout.name(of: $0.key, in: SharedLayout.replicas) }
            let confirmed = Set(acks.compactMap { store.layout.name(of: $0.key, in: SharedLayout.acks(of: record)) }).union([replica])
            let result = PurgeOutcome.Replicas(confirmed: confirmed.sorted(), pending: Set(alive).subtracting(confirmed).sorted())
            if result.pending.isEmpty || clock.now() >= deadline { return result }
            clock.sleep(seconds: Defaults.confirmationPoll)
        }
    }

    private func markApplied(_ record: String) {
        let added = withKept { $0.applied.insert(record).inserted }
        if added, let appliedFile {
            if let handle = FileHandle(forWritingAtPath: appliedFile) {
                handle.seekToEndOfFile()
                handle.write(Data((record + "\n").utf8))
                try? handle.close()
            } else {
                try? (record + "\n").write(toFile: appliedFile, atomically: true, encoding: .utf8)
            }
        }
        let key = store.layout.key(replica, in: SharedLayout.acks(of: record))
        _ = store.ask(key) { client throws(S3Error) in try client.put(key, body: []) }
    }

    private func saveApplied() {
        guard let appliedFile else { return }
        let text = withKept { $0.applied.sorted().map { $0 + "\n" }.joined() }
        try? text.write(toFile: appliedFile, atomically: true, encoding: .utf8)
    }

    private func expire(_ record: String) {
        for ack in (try? store.list(SharedLayout.acks(of: record)).get()) ?? [] {
            _ = store.ask(ack.key) { client throws(S3Error) in try client.delete(ack.key) }
        }
        let key = store.layout.key(record, in: SharedLayout.purges)
        _ = store.ask(key) { client throws(S3Error) in try client.delete(key) }
    }
}
