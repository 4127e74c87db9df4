/// The cache tier an answer came from.
package enum CacheTier: String, Sendable {
    case memory, disk, shared
}
