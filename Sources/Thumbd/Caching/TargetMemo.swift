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
    private let keyed = Mutex<(version: String, key: CacheKey, options: TransformOptions)?>(nil)

    init(path: LibraryPath, transform: TransformRequest?) {
        self.path = path
        self.transform = transform
    }

    /// The key and resolved options for source version `version`, computed once per version.
    func key(version: String, make: () -> (CacheKey, TransformOptions)) -> (CacheKey, TransformOptions) {
        if let hit = keyed.withLock({ $0 }), hit.version == version { return (hit.key, hit.options) }
        let (key, options) = make()
        keyed.withLock { $0 = (version, key, options) }
        return (key, options)
    }
}

/// Parsed targets by request target (and Accept, which `fm=auto` keys depend on), bounded.
final class TargetMemo: Sendable {
    private let entries: SharedLRUCache<String, ParsedTarget>

    init(capacityBytes: Int = 8 << 20) {
        entries = SharedLRUCache(capacity: capacityBytes)
    }

    func get(_ memoKey: String) -> ParsedTarget? { entries.get(memoKey) }

    func put(_ memoKey: String, _ parsed: ParsedTarget) {
        entries.put(memoKey, parsed, cost: memoKey.utf8.count * 2 + 256)
    }
}
