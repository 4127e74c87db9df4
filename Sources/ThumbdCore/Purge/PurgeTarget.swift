/// What one purge removes: a library image's thumbnails (and its kept original, for a bucket),
/// or a remote original's thumbnails and the original kept of it.
package enum PurgeTarget: Sendable, Hashable {
    case library(LibraryPath)
    case remote(String)

    /// The prefix every stored key of the source starts with.
    package func sourceName(in library: any LibraryBackend) -> SourceName {
        switch self {
        case .library(let path): library.sourceName(path)
        case .remote(let url): .remote(url)
        }
    }
}

extension PurgeTarget: Codable {
    /// `{"path": "trips/a.jpg"}` or `{"url": "https://..."}`, decoded.
    private enum CodingKeys: String, CodingKey {
        case path, url
    }

    package init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        if let path = try values.decodeIfPresent(String.self, forKey: .path) {
            do {
                self = .library(try LibraryPath(decoded: path))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .path, in: values, debugDescription: "a refused library path")
            }
        } else {
            self = .remote(try values.decode(String.self, forKey: .url))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .library(let path): try values.encode(path.value, forKey: .path)
        case .remote(let url): try values.encode(url, forKey: .url)
        }
    }
}
