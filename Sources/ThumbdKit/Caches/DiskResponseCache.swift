import Crypto
import Foundation
import Locking
import WireCoding

/// The disk tier: response bodies with their validators and freshness facts, and the bytes
/// of stopped downloads, one file each, bounded in bytes with the least recently used files
/// evicted first.
///
/// - A file is written to `tmp/` and renamed into place, so a crash never leaves a torn entry.
/// - Each file carries its lengths, its key and CRC-32s of header and body (`DiskRecord`);
///   a file that fails any check is deleted and reported as a miss.
/// - Use is recorded in the files' modification dates, so the LRU order survives a restart;
///   the index is rebuilt from the folder on first use, off the caller's thread.
final class DiskResponseCache: Sendable {
    let directory: URL
    let capacityBytes: Int

    fileprivate struct FileState {
        var bytes: Int
        var lastUsed: Date
    }

    /// The index of the folder, behind one lock: built on first use, then kept in step with
    /// every read, write and removal.
    fileprivate struct State {
        var files: [String: FileState] = [:]
        var totalBytes = 0
        var indexed = false
        var corruptFiles = 0
    }

    private let state = Locked(State())

    private static let responses = "entries"
    private static let partials = "partials"
    private static let temporary = "tmp"
    /// A temporary file this old belongs to no writer still running (a crash left it).
    private static let abandonedTemporaryAge: TimeInterval = 120

    /// Nil when the folder cannot be created (the loader then runs without a disk tier).
    init?(directory: URL, capacityBytes: Int) {
        self.directory = directory
        self.capacityBytes = max(0, capacityBytes)
        do {
            for folder in [Self.responses, Self.partials, Self.temporary] {
                try FileManager.default.createDirectory(at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
        } catch {
            return nil
        }
    }

    // MARK: - Complete responses

    func response(for key: String) -> (info: CachedResponseInfo, body: Data)? {
        guard let record = read(name(Self.responses, key), key: key, kind: .response), let info = record.header.response,
              info.contentLength == record.body.count
        else { return nil }
        return (info, record.body)
    }

    func storeResponse(_ body: Data, info: CachedResponseInfo, for key: String) {
        write(name(Self.responses, key), DiskRecord.Header(kind: .response, key: key, response: info, partial: nil), body: body)
    }

    /// After a 304 for an entry revalidated from memory: rewrites the disk copy's facts, if
    /// the disk holds the same representation.
    func refreshResponse(for key: String, from old: CachedResponseInfo, to new: CachedResponseInfo) {
        guard let current = response(for: key), current.info.etag == old.etag, current.info.lastModified == old.lastModified else { return }
        storeResponse(current.body, info: new, for: key)
    }

    func removeResponse(for key: String) {
        delete(name(Self.responses, key))
    }

    // MARK: - Partial downloads

    func partial(for key: String) -> PartialDownload? {
        guard let record = read(name(Self.partials, key), key: key, kind: .partial), let info = record.header.partial,
              record.body.count < info.completeLength
        else { return nil }
        return PartialDownload(key: key, info: info, data: record.body)
    }

    func storePartial(_ partial: PartialDownload) {
        write(name(Self.partials, partial.key), DiskRecord.Header(kind: .partial, key: partial.key, response: nil, partial: partial.info),
              body: partial.data)
    }

    func removePartial(for key: String) {
        delete(name(Self.partials, key))
    }

    // MARK: - The whole tier

    func removeAll() {
        state.withLock { state in
            indexIfNeeded(&state)
            for name in state.files.keys { unlink(directory.appendingPathComponent(name).path) }
            state.files.removeAll()
            state.totalBytes = 0
        }
    }

    var usage: (files: Int, bytes: Int, corruptFilesRemoved: Int) {
        state.withLock { state -> (files: Int, bytes: Int, corruptFilesRemoved: Int) in
            indexIfNeeded(&state)
            return (state.files.count, state.totalBytes, state.corruptFiles)
        }
    }

    // MARK: - Files

    /// `entries/<sha256 of key>`: fixed-length names whatever the URL.
    private func name(_ folder: String, _ key: String) -> String {
        folder + "/" + Hex.lowercase(SHA256.hash(data: Array(key.utf8)))
    }

    private func read(_ name: String, key: String, kind: DiskRecord.Header.Kind) -> (header: DiskRecord.Header, body: Data)? {
        state.withLock { indexIfNeeded(&$0) }
        let url = directory.appendingPathComponent(name)
        guard let file = try? Data(contentsOf: url) else {
            state.withLock { $0.forget(name) }
            return nil
        }
        guard let record = DiskRecord.decode(file), record.header.key == key, record.header.kind == kind else {
            // Torn, damaged or someone else's: never served; removed so it is fetched again.
            state.withLock { state in
                unlink(url.path)
                state.forget(name)
                state.corruptFiles += 1
            }
            return nil
        }
        let now = Date()
        state.withLock { $0.record(name, bytes: file.count, usedAt: now) }
        // The use, on disk too, so the order of eviction survives a restart.
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
        return record
    }

    private func write(_ name: String, _ header: DiskRecord.Header, body: Data) {
        guard let record = DiskRecord.encode(header, body: body), record.count <= capacityBytes else { return }
        state.withLock { indexIfNeeded(&$0) }
        let temporary = directory.appendingPathComponent(Self.temporary).appendingPathComponent(UUID().uuidString)
        do {
            try record.write(to: temporary)
        } catch {
            unlink(temporary.path)
            return
        }
        let destination = directory.appendingPathComponent(name)
        state.withLock { state in
            // rename(2) replaces atomically: a reader sees the old file or the new one, whole.
            guard rename(temporary.path, destination.path) == 0 else {
                unlink(temporary.path)
                return
            }
            state.record(name, bytes: record.count, usedAt: Date())
            evictIfNeeded(&state, keeping: name)
        }
    }

    private func delete(_ name: String) {
        state.withLock { state in
            unlink(directory.appendingPathComponent(name).path)
            state.forget(name)
        }
    }

    /// Oldest use first, until the tier fits. Called with the lock held.
    private func evictIfNeeded(_ state: inout State, keeping kept: String) {
        guard state.totalBytes > capacityBytes else { return }
        let byAge = state.files.filter { $0.key != kept }.sorted { $0.value.lastUsed < $1.value.lastUsed }
        for (name, _) in byAge {
            guard state.totalBytes > capacityBytes else { break }
            unlink(directory.appendingPathComponent(name).path)
            state.forget(name)
        }
    }

    /// Builds the index from the folder, once: sizes and last uses (modification dates), and
    /// removes temporary files a crash left behind. Called with the lock held.
    private func indexIfNeeded(_ state: inout State) {
        guard !state.indexed else { return }
        state.indexed = true
        let manager = FileManager.default
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        for folder in [Self.responses, Self.partials] {
            let url = directory.appendingPathComponent(folder)
            let contents = (try? manager.contentsOfDirectory(at: url, includingPropertiesForKeys: keys)) ?? []
            for file in contents {
                guard let values = try? file.resourceValues(forKeys: Set(keys)), let size = values.fileSize else { continue }
                state.record(folder + "/" + file.lastPathComponent, bytes: size, usedAt: values.contentModificationDate ?? .distantPast)
            }
        }
        let temporary = directory.appendingPathComponent(Self.temporary)
        let leftovers = (try? manager.contentsOfDirectory(at: temporary, includingPropertiesForKeys: keys)) ?? []
        let cutoff = Date().addingTimeInterval(-Self.abandonedTemporaryAge)
        for file in leftovers {
            // Young temporary files may belong to another loader writing to this folder now.
            let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? .distantPast
            if modified < cutoff { unlink(file.path) }
        }
        evictIfNeeded(&state, keeping: "")
    }
}

extension DiskResponseCache.State {
    /// A file's size and last use, replacing what was known of it.
    mutating func record(_ name: String, bytes: Int, usedAt date: Date) {
        forget(name)
        files[name] = .init(bytes: bytes, lastUsed: date)
        totalBytes += bytes
    }

    mutating func forget(_ name: String) {
        if let old = files.removeValue(forKey: name) { totalBytes -= old.bytes }
    }
}
