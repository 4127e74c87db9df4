import WireCoding

/// What names one version of a source, by what the source can tell: typed, and rendered once
/// into the text cache keys and ETags have always been made from (`text`), so entries on disk
/// and validators held by clients stay valid.
package struct VersionTag: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: Sendable, Hashable {
        /// A library file: its modification time and size. `o<mtime ns, hex>-<size, hex>`.
        case file(modifiedNanos: Int64, size: Int64)
        /// The ETag a store sent, as sent (quotes included). `e<ETag>`.
        case entityTag(String)
        /// The Last-Modified a store sent, when it sent no ETag. `m<Unix seconds>`.
        case modified(seconds: Int)
        /// A checksum of the bytes, when the store sent neither. `c<CRC-32C, hex>-<length>`.
        case checksum(crc: UInt32, length: Int)
    }

    package let kind: Kind
    /// The tag as keys and ETags spell it.
    package let text: String

    package init(_ kind: Kind) {
        self.kind = kind
        text = switch kind {
        case .file(let modified, let size): "o" + String(UInt64(bitPattern: modified), radix: 16) + "-" + String(size, radix: 16)
        case .entityTag(let etag): "e" + etag
        case .modified(let seconds): "m\(seconds)"
        case .checksum(let crc, let length): "c\(String(crc, radix: 16))-\(length)"
        }
    }

    /// A tag read back from its text (a disk entry's); nil for text no build wrote.
    package init?(text: String) {
        guard let first = text.first else { return nil }
        let rest = text.dropFirst()
        let kind: Kind
        switch first {
        case "e":
            kind = .entityTag(String(rest))
        case "m":
            guard let seconds = Int(rest), seconds > 0 else { return nil }
            kind = .modified(seconds: seconds)
        case "o", "c":
            let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            if first == "o" {
                guard let modified = UInt64(parts[0], radix: 16), let size = Int64(parts[1], radix: 16) else { return nil }
                kind = .file(modifiedNanos: Int64(bitPattern: modified), size: size)
            } else {
                guard let crc = UInt32(parts[0], radix: 16), let length = Int(parts[1]) else { return nil }
                kind = .checksum(crc: crc, length: length)
            }
        default:
            return nil
        }
        self.init(kind)
        guard self.text == text else { return nil }
    }

    /// The ETag of the store, when this names one.
    package var entityTag: String? {
        if case .entityTag(let etag) = kind { etag } else { nil }
    }

    package var description: String { text }

    package static func == (a: VersionTag, b: VersionTag) -> Bool { a.text == b.text }

    package func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
