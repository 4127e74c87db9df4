import Foundation

/// The demo set's photograph of people and its video clip, where `make run` fetched them
/// (scripts/demo-media.sh, from Debian's kphotoalbum package: GPL-2+): what `crop=face`,
/// `redact=face` and a video's poster and preview show on a first start. Copied as they are,
/// under the names the README's tour and docs/getting-started.md use.
package struct DemoMedia: Sendable {
    /// Where scripts/demo-media.sh puts them (relative to the working directory).
    package static let defaultFolder = ".build/demo-media"
    /// The library names, which are also the file names in the folder.
    package static let people = "people/group.jpg"
    package static let clip = "video/clip.mp4"

    /// The files found, each a library name and its full path.
    package let files: [(name: String, path: String)]

    /// Those of `people` and `clip` that `folder` holds; nil when it holds neither, or is empty.
    package init?(folder: String) {
        guard !folder.isEmpty else { return nil }
        let found = [Self.people, Self.clip].compactMap { name -> (name: String, path: String)? in
            let path = folder + "/" + name
            return FileManager.default.fileExists(atPath: path) ? (name, path) : nil
        }
        guard !found.isEmpty else { return nil }
        files = found
    }
}
