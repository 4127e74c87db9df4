/// The source part of a cache key: `img|photos/a.jpg` or `proxy|https://...`.
struct SourceName: Sendable, Hashable {
    let text: String

    static func library(_ path: String) -> SourceName { SourceName(text: "img|" + path) }
    static func remote(_ url: String) -> SourceName { SourceName(text: "proxy|" + url) }
}
