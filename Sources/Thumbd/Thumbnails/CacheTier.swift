/// The cache tier an answer came from.
enum CacheTier: String, Sendable {
    case memory, disk
}
