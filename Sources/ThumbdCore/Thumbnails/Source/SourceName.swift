/// The source part of a cache key: `img|photos/a.jpg`, `proxy|https://...` or `s3|bucket/key`. `%` and `|` in
/// the path or URL are escaped, so the text is followed by `|` in exactly the keys of this
/// source and a purge can find them all (paths and URLs without those characters, nearly
/// all of them, give the same text as before it was escaped).
package struct SourceName: Sendable, Hashable {
    package let text: String

    package static func library(_ path: String) -> SourceName { SourceName(text: "img|" + escaped(path)) }
    package static func remote(_ url: String) -> SourceName { SourceName(text: "proxy|" + escaped(url)) }
    /// An object of an S3 library, by bucket and key (not by library path: two buckets, or two
    /// prefixes of one, never share entries).
    package static func s3(bucket: String, key: String) -> SourceName { SourceName(text: "s3|" + escaped(bucket + "/" + key)) }

    /// What every cache key of this source starts with.
    package var keyPrefix: String { text + "|" }

    package static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "|") }) else { return text }
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "|": out += "%7C"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    package init(text: String) {
        self.text = text
    }
}
