import Foundation
import Imaging
import ThumbdProtocol

/// The demo set written into an empty library, so a first `make run` shows something: real
/// photographs where the machine has Debian's `mate-backgrounds` (each tagged with its authors
/// in XMP, so `author` comes from the image itself), else generated ones; and generated
/// PNG, WebP, AVIF and animated GIF cases; and, where `make run` fetched them (`DemoMedia`),
/// a photograph of people and a short video clip. Varied sizes, aspect ratios and formats.
package enum DemoLibrary {
    package struct Item {
        package var name: String
        package var width: Int
        package var height: Int
        package var format: OutputFormat
        package var alpha = false

        package init(name: String, width: Int, height: Int, format: OutputFormat, alpha: Bool = false) {
            self.name = name
            self.width = width
            self.height = height
            self.format = format
            self.alpha = alpha
        }
    }

    /// The photographs made when the package is absent.
    package static let generatedPhotos: [Item] = {
        let shapes = [(1600, 1067), (1067, 1600), (1200, 1200), (2000, 800), (800, 2000), (1280, 720),
                      (720, 1280), (1024, 768), (768, 1024), (1500, 1000), (640, 640), (1920, 1080),
                      (900, 1350), (1400, 700), (1000, 1500), (1800, 1200)]
        return shapes.enumerated().map { i, shape in
            Item(name: photoName(i), width: shape.0, height: shape.1, format: .jpeg)
        }
    }()

    /// The formats and cases besides photographs, always generated.
    package static let generatedGraphics: [Item] = [
        Item(name: "graphics/badge.png", width: 800, height: 800, format: .png, alpha: true),
        Item(name: "graphics/banner.png", width: 1600, height: 400, format: .png, alpha: true),
        Item(name: "graphics/poster.png", width: 900, height: 1200, format: .png),
        Item(name: "graphics/tile.png", width: 512, height: 512, format: .png),
        Item(name: "web/landscape.webp", width: 1600, height: 900, format: .webp),
        Item(name: "web/portrait.webp", width: 900, height: 1600, format: .webp, alpha: true),
        Item(name: "web/compact.avif", width: 800, height: 600, format: .avif),
        Item(name: "web/animation.gif", width: 320, height: 240, format: .gif),
    ]

    /// `photos/photo-01.jpg`, ...: the same names whichever photographs fill them, so links
    /// in the README, the examples of docs/ and the OpenAPI examples work on every machine.
    package static func photoName(_ index: Int) -> String { String(format: "photos/photo-%02d.jpg", index + 1) }

    /// Writes the set when `root` holds no visible entry; returns how many files it wrote.
    package static func populateIfEmpty(root: String, photos: DemoPhotos? = DemoPhotos(), media: DemoMedia? = nil) throws -> Int {
        let fm = FileManager.default
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        let existing = try fm.contentsOfDirectory(atPath: root).filter { !$0.hasPrefix(".") }
        guard existing.isEmpty else { return 0 }
        var files: [(name: String, bytes: () throws -> [UInt8])] = []
        if let photos {
            for (i, photo) in photos.photos.enumerated() {
                files.append((photoName(i), { try tagged(photo) }))
            }
        } else {
            for (seed, item) in generatedPhotos.enumerated() { files.append((item.name, { try encode(item, seed: seed) })) }
        }
        for (i, item) in generatedGraphics.enumerated() {
            files.append((item.name, { try encode(item, seed: generatedPhotos.count + i) }))
        }
        for file in media?.files ?? [] {
            files.append((file.name, { [UInt8](try Data(contentsOf: URL(fileURLWithPath: file.path))) }))
        }
        for file in files {
            let url = URL(fileURLWithPath: root).appendingPathComponent(file.name)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(try file.bytes()).write(to: url, options: .atomic)
        }
        return files.count
    }

    /// The photograph's bytes with its authors in an XMP packet (the pixels untouched).
    package static func tagged(_ photo: DemoPhotos.Photo) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo.file)))
        return ImageAuthor.tagging(jpeg: bytes, creators: photo.authors) ?? bytes
    }

    package static func encode(_ item: Item, seed: Int) throws -> [UInt8] {
        if item.format == .gif {
            let frames = try (0..<6).map { try ImageSynthesis.pattern(width: item.width, height: item.height, seed: seed + $0 * 3) }
            return try ImageSynthesis.animation(frames, delay: 150).encode(.gif)
        }
        let image = try ImageSynthesis.pattern(width: item.width, height: item.height, bands: item.alpha ? 4 : 3, seed: seed)
        return try image.encode(item.format, quality: 85)
    }
}
