import Glibc

/// One page of a ListObjectsV2 answer: the objects on it, and the token of the next page while
/// the listing is truncated.
package struct S3ListPage: Sendable, Equatable {
    package struct Object: Sendable, Equatable {
        package var key: String
        /// As in an object's answers, quoted.
        package var etag: String
        package var size: Int64
        /// Seconds since the epoch; 0 when unreadable.
        package var lastModified: Int

        package init(key: String, etag: String, size: Int64, lastModified: Int) {
            self.key = key
            self.etag = etag
            self.size = size
            self.lastModified = lastModified
        }
    }

    package var objects: [Object]
    package var nextToken: String?

    /// Nil when `xml` is no ListBucketResult.
    package init?(xml: [UInt8]) {
        let text = String(decoding: xml, as: UTF8.self)
        guard text.contains("<ListBucketResult") else { return nil }
        objects = S3XML.elements("Contents", in: Substring(text)).compactMap { contents in
            guard let key = S3XML.text("Key", in: contents), let etag = S3XML.text("ETag", in: contents),
                  let size = S3XML.text("Size", in: contents).flatMap({ Int64($0) }) else { return nil }
            return Object(key: key, etag: etag, size: size,
                          lastModified: S3XML.text("LastModified", in: contents).flatMap(Self.seconds) ?? 0)
        }
        let truncated = S3XML.text("IsTruncated", in: Substring(text)) == "true"
        nextToken = truncated ? S3XML.text("NextContinuationToken", in: Substring(text)) : nil
    }

    package init(objects: [Object], nextToken: String?) {
        self.objects = objects
        self.nextToken = nextToken
    }

    /// `2026-11-25T13:49:20.227Z` (ISO 8601 in UTC, as S3 writes it) in whole seconds.
    package static func seconds(_ text: String) -> Int? {
        let digits = text.utf8.map { Int($0) - 0x30 }
        guard text.utf8.count >= 20, text.hasSuffix("Z") else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var n = 0
            for i in from..<(from + count) {
                guard (0...9).contains(digits[i]) else { return nil }
                n = n * 10 + digits[i]
            }
            return n
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2) else { return nil }
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        let value = timegm(&fields)
        return value < 0 ? nil : Int(value)
    }
}
