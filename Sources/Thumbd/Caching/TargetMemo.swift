import Cache
import Imaging
import Synchronization

/// What a valid request target was parsed into, kept so that repeated requests (grids ask
/// for the same URLs again and again) skip query parsing, validation and key hashing.
/// Configuration does not change while serving, so a target valid once is valid always;
/// the cache key also depends on the source version, kept for the latest one seen.
final class ParsedTarget: Sendable {
    let path: LibraryPath
    let transform: TransformRequest?
    /// Keys for the latest source version seen: one, or one per negotiated format for `fm=auto`.
    private let keyed = Mutex<[(version: String, format: String, key: CacheKey, options: TransformOptions)]>([])

    init(path: LibraryPath, transform: TransformRequest?) {
        self.path = path
        self.transform = transform
    }

    /// The key and resolved options for source version `version` and negotiated `format`
    /// ("" when the target does not negotiate), computed once per version and format.
    func key(version: String, format: String, make: () -> (CacheKey, TransformOptions)) -> (CacheKey, TransformOptions) {
        let known = keyed.withLock { entries in
            entries.first { $0.version == version && $0.format == format }.map { ($0.key, $0.options) }
        }
        if let known { return known }
        let (key, options) = make()
        keyed.withLock { entries in
            // A new source version replaces every key of the old one.
            entries.removeAll { $0.version != version }
            entries.append((version, format, key, options))
        }
        return (key, options)
    }
}

/// Parsed targets by request target, bounded. (Accept is not part of it: it only picks the
/// negotiated format, which `ParsedTarget.key` takes per request.)
final class TargetMemo: Sendable {
    private let entries: SharedLRUCache<String, ParsedTarget>

    init(capacityBytes: Int = 8 << 20) {
        entries = SharedLRUCache(capacity: capacityBytes)
    }

    func get(_ memoKey: String) -> ParsedTarget? { entries.get(memoKey) }

    func put(_ memoKey: String, _ parsed: ParsedTarget) {
        entries.put(memoKey, parsed, cost: memoKey.utf8.count * 2 + 1024)  // about what a parsed target and its keys take
    }
}
