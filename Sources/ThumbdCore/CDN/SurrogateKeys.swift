import Crypto
import WireCoding

/// The tags a CDN files a cacheable answer under (`xkey`, `Surrogate-Key`, `Cache-Tag`), so
/// that one purge drops everything made from a source, or from every source under a folder:
/// the source's own tag, and one for each folder above it, the library's root first. A remote
/// original has its own tag only (its URL's path is not a folder of the library).
///
/// A tag is a letter and 16 hex digits of the SHA-256 of the source's key text (`s`) or of a
/// folder's (`f`): short, the same on every replica and after every restart, and never the
/// path or URL itself, which may carry a token of its origin's.
package enum SurrogateKeys {
    /// The folders' tags, then the source's.
    package static func tags(of source: SourceName) -> [String] {
        folders(of: source).map(folderTag) + [sourceTag(source)]
    }

    package static func sourceTag(_ source: SourceName) -> String { tag("s", source.text) }

    /// The tag of the folder whose sources' key texts start with `prefix` (a library folder's
    /// source name followed by `/`; `img|` for a folder library's root).
    package static func folderTag(_ prefix: String) -> String { tag("f", prefix) }

    /// The key-text prefixes of the folders above a library source: `img|`, `img|a/`, `img|a/b/`
    /// for `img|a/b/c.jpg`; `s3|bucket/` and on for a bucket's; none for a remote original.
    package static func folders(of source: SourceName) -> [String] {
        let text = source.text
        guard !text.hasPrefix("proxy|"), let bar = text.firstIndex(of: "|") else { return [] }
        var prefixes = [String(text[...bar])]
        var index = text.index(after: bar)
        while let slash = text[index...].firstIndex(of: "/") {
            prefixes.append(String(text[...slash]))
            index = text.index(after: slash)
        }
        return prefixes
    }

    private static func tag(_ kind: Character, _ text: String) -> String {
        String(kind) + Hex.lowercase(SHA256.hash(data: Array(text.utf8)).prefix(8))
    }
}
