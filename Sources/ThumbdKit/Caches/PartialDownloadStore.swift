import Foundation
import Locking

/// Where the bytes of stopped transfers wait for their resume: in memory (bounded in bytes,
/// oldest dropped first) and, when the loader has a disk tier, on disk too, so a resume also
/// works after the app restarts. Disk writes go through one serial queue, off the thread that
/// cancelled (often the main thread), in the order they were asked for.
final class PartialDownloadStore: Sendable {
    private struct Memory {
        var partials: [String: PartialDownload] = [:]
        var order: [String] = []
        var bytes = 0
    }

    private let capacityBytes: Int
    private let disk: DiskResponseCache?
    private let memory = Locked(Memory())
    private let diskQueue = DispatchQueue(label: "ThumbdKit.PartialDownloadStore", qos: .utility)

    init(capacityBytes: Int, disk: DiskResponseCache?) {
        self.capacityBytes = max(0, capacityBytes)
        self.disk = disk
    }

    /// The partial for `key`: memory first, then disk.
    func partial(for key: String) -> PartialDownload? {
        if let kept = memory.withLock({ $0.partials[key] }) { return kept }
        return disk?.partial(for: key)
    }

    /// Keeps `partial` (replacing an older one for the same key). Returns at once; the disk
    /// copy follows.
    func keep(_ partial: PartialDownload) {
        memory.withLock { state in
            Self.drop(partial.key, from: &state)
            guard partial.data.count <= capacityBytes else { return }
            state.partials[partial.key] = partial
            state.order.append(partial.key)
            state.bytes += partial.data.count
            while state.bytes > capacityBytes, let oldest = state.order.first {
                Self.drop(oldest, from: &state)
            }
        }
        if let disk {
            diskQueue.async { disk.storePartial(partial) }
        }
    }

    func discard(_ key: String) {
        memory.withLock { Self.drop(key, from: &$0) }
        if let disk {
            diskQueue.async { disk.removePartial(for: key) }
        }
    }

    func removeAll() {
        memory.withLock { $0 = Memory() }
    }

    /// Waits for the disk writes asked for so far (tests, and an app about to quit).
    func flush() {
        diskQueue.sync {}
    }

    private static func drop(_ key: String, from state: inout Memory) {
        guard let old = state.partials.removeValue(forKey: key) else { return }
        state.bytes -= old.data.count
        state.order.removeAll { $0 == key }
    }
}
