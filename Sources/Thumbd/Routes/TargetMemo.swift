import Cache
import Synchronization
import ThumbdCore
import ThumbdProtocol

/// What a valid `/img` target was parsed into, kept so that repeated requests (grids ask for
/// the same URLs again and again) skip query parsing, validation and key building.
/// Configuration does not change while serving, so a target valid once is valid always,
/// until its `expires` (checked on every use).
final class ParsedTarget: Sendable {
    let path: LibraryPath
    let transform: TransformRequest?
    let identities = IdentityMemo()
    /// Unix seconds after which the target is refused; nil: never.
    let expires: Int?

    init(path: LibraryPath, transform: TransformRequest?, expires: Int? = nil) {
        self.path = path
        self.transform = transform
        self.expires = expires
    }
}

/// Parsed targets by request target, bounded. (Accept is not part of it: it only picks the
/// negotiated format, which the identity memo keeps per format.)
final class TargetMemo: Sendable {
    private let entries: SharedLRUCache<String, ParsedTarget>

    init(capacityBytes: Int = 8 << 20) {
        entries = SharedLRUCache(capacity: capacityBytes)
    }

    func get(_ target: String) -> ParsedTarget? { entries.get(target) }

    func put(_ target: String, _ parsed: ParsedTarget) {
        entries.put(target, parsed, cost: target.utf8.count * 2 + 1024)  // about what a parsed target and its identities take
    }
}
