/// Where an S3 library's images are: a bucket and the prefix of their keys, from
/// `s3://BUCKET/PREFIX` (`library.root`). A library path is the rest of a key after the prefix.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    public static let scheme = "s3://"

    public let bucket: String
    /// Ends with `/` unless empty (the whole bucket).
    public let prefix: String

    /// Nil for text that is not `s3://` followed by a bucket name (letters, digits, `.`, `-`,
    /// `_`; 3 to 63 characters) and a prefix without empty, dot or hidden segments, which no
    /// library path could reach.
    public init?(parsing text: String) {
        guard text.hasPrefix(Self.scheme) else { return nil }
        let rest = text.dropFirst(Self.scheme.count)
        let bucket = rest.prefix { $0 != "/" }
        guard (3...63).contains(bucket.utf8.count),
              bucket.utf8.allSatisfy({ Self.bucketCharacter($0) }) else { return nil }
        var segments = rest.dropFirst(bucket.count).split(separator: "/", omittingEmptySubsequences: false)
        // `s3://b/`, `s3://b/a/`: the slashes that end it name no segment.
        if segments.first == "" { segments.removeFirst() }
        if segments.last == "" { segments.removeLast() }
        guard segments.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") && !$0.utf8.contains(0) }) else { return nil }
        self.bucket = String(bucket)
        prefix = segments.isEmpty ? "" : segments.joined(separator: "/") + "/"
    }

    public var description: String { Self.scheme + bucket + "/" + prefix }

    private static func bucketCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
