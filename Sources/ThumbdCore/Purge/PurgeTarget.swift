/// What one purge removes: a library image's thumbnails (and its kept original, for a bucket),
/// a remote original's thumbnails and the original kept of it, or those of every library
/// image under a folder.
package enum PurgeTarget: Sendable, Hashable {
    case library(LibraryPath)
    case remote(String)
    case folder(LibraryPath)

    /// What every stored key of the source (or of every source under the folder) starts with.
    package func keyPrefix(in library: any LibraryBackend) -> String {
        switch self {
        case .library(let path): library.sourceName(path).keyPrefix
        case .remote(let url): SourceName.remote(url).keyPrefix
        case .folder(let path): Self.folderPrefix(path, in: library)
        }
    }

    /// The tag a CDN filed the answers under (`SurrogateKeys`).
    package func cdnTag(in library: any LibraryBackend) -> String {
        switch self {
        case .library(let path): SurrogateKeys.sourceTag(library.sourceName(path))
        case .remote(let url): SurrogateKeys.sourceTag(.remote(url))
        case .folder(let path): SurrogateKeys.folderTag(Self.folderPrefix(path, in: library))
        }
    }

    /// The library paths the target names: the image's, or those the listing has under the
    /// folder; none for a remote original. Blocking for a folder (the listing may be read).
    package func libraryPaths(in library: any LibraryBackend) -> [LibraryPath] {
        switch self {
        case .library(let path): return [path]
        case .remote: return []
        case .folder(let folder):
            let items = (try? library.index.current().items) ?? []
            return items.compactMap { item in
                item.path.hasPrefix(folder.value + "/") ? try? LibraryPath(decoded: item.path) : nil
            }
        }
    }

    private static func folderPrefix(_ path: LibraryPath, in library: any LibraryBackend) -> String {
        library.sourceName(path).text + "/"
    }
}

extension PurgeTarget: Codable {
    /// `{"path": "trips/a.jpg"}` or `{"url": "https://..."}`, decoded.
    private enum CodingKeys: String, CodingKey {
        case path, url, folder
    }

    package init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        if let path = try values.decodeIfPresent(String.self, forKey: .path) {
            do {
                self = .library(try LibraryPath(decoded: path))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .path, in: values, debugDescription: "a refused library path")
            }
        } else if let folder = try values.decodeIfPresent(String.self, forKey: .folder) {
            do {
                self = .folder(try LibraryPath(decoded: folder))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .folder, in: values, debugDescription: "a refused library folder")
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
        case .folder(let path): try values.encode(path.value, forKey: .folder)
        }
    }
}
