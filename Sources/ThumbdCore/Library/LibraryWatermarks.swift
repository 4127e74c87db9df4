import ThumbdProtocol

/// Watermark images from the library, through its open-file cache (a stat per lookup, as for
/// any library image, so a replaced watermark is seen at once).
package struct LibraryWatermarks: WatermarkImages {
    package let files: LibraryFileCache

    package func watermark(at path: String) throws(ParameterError) -> WatermarkFile {
        let refusal = ParameterError(parameter: "wm", detail: "wm names no image of the library: '\(path)'")
        let entry: LibraryFileCache.Entry
        do {
            entry = try files.lookup(LibraryPath(decoded: path))
        } catch {
            throw refusal
        }
        return WatermarkFile(version: entry.etag.opaque, bytes: { entry.content ?? entry.readAll() })
    }

    package init(files: LibraryFileCache) {
        self.files = files
    }
}
