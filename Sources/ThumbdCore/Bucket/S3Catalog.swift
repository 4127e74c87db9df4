import Imaging

/// The bucket as the index reads it: ListObjectsV2 under the prefix, page after page, each key
/// that is a valid library path once the prefix is taken off (hidden, empty and dot segments
/// are not listed, as the library refuses them). Every listed version is remembered, so a
/// thumbnail of a listed image needs no HEAD within the ttl; an image's bytes are read through
/// the originals store (within `limits.max_source_bytes`), a video's by ranges, of any size.
package struct S3Catalog: LibraryCatalog {
    package let objects: S3Objects
    package var pageSize = S3Client.Defaults.listPageSize

    package func entries() throws -> [LibraryIndex.Entry] {
        let prefix = objects.client.location.prefix
        var entries: [LibraryIndex.Entry] = []
        var token: String?
        repeat {
            let page = try objects.ask(prefix) { _ throws(S3Error) in
                try objects.client.list(prefix: prefix, after: token, maxKeys: pageSize)
            }.get()
            for object in page.objects where object.key.hasPrefix(prefix) && object.size > 0 {
                let path = String(object.key.dropFirst(prefix.count))
                guard (try? LibraryPath(decoded: path)) != nil else { continue }
                let tag = S3Objects.versionTag(etag: object.etag)
                objects.remember(object.key, SourceVersion(tag: tag, format: nil, lastModified: object.lastModified,
                                                           byteCount: Int(object.size)))
                entries.append(LibraryIndex.Entry(path: path, version: tag.text, tag: tag.text, size: object.size))
            }
            // A store that hands back the token it was given would list for ever.
            token = page.nextToken == token ? nil : page.nextToken
        } while token != nil
        return entries
    }

    package func read(_ entry: LibraryIndex.Entry) -> SourceContent? {
        let key = objects.client.location.prefix + entry.path
        if entry.size > objects.maxBytes, let video = objects.videoReader(key, asking: true) {
            guard video.version.tag.text == entry.version, let format = video.version.format else { return nil }
            return .video(video.reader, format)
        }
        guard entry.size <= objects.maxBytes, case .success(let found) = objects.original(objects.client.location.prefix + entry.path),
              found.original.version.tag.text == entry.version, let format = found.original.version.format else { return nil }
        return SourceContent(bytes: found.original.bytes, format: format)
    }

    package init(objects: S3Objects, pageSize: Int = S3Client.Defaults.listPageSize) {
        self.objects = objects
        self.pageSize = pageSize
    }
}
