import Foundation
import Imaging
import ThumbdProtocol

/// A generated set of images written into an empty library, so a first `make run` shows
/// something: varied sizes, aspect ratios and formats, made with libvips.
enum DemoLibrary {
    struct Item {
        var name: String
        var width: Int
        var height: Int
        var format: OutputFormat
        var alpha = false
    }

    static let items: [Item] = {
        var items: [Item] = []
        let shapes = [(1600, 1067), (1067, 1600), (1200, 1200), (2000, 800), (800, 2000), (1280, 720),
                      (720, 1280), (1024, 768), (768, 1024), (1500, 1000), (640, 640), (1920, 1080),
                      (900, 1350), (1400, 700), (1000, 1500), (1800, 1200)]
        for (i, (w, h)) in shapes.enumerated() {
            items.append(Item(name: String(format: "photos/photo-%02d.jpg", i + 1), width: w, height: h, format: .jpeg))
        }
        items.append(Item(name: "graphics/badge.png", width: 800, height: 800, format: .png, alpha: true))
        items.append(Item(name: "graphics/banner.png", width: 1600, height: 400, format: .png, alpha: true))
        items.append(Item(name: "graphics/poster.png", width: 900, height: 1200, format: .png))
        items.append(Item(name: "graphics/tile.png", width: 512, height: 512, format: .png))
        items.append(Item(name: "web/landscape.webp", width: 1600, height: 900, format: .webp))
        items.append(Item(name: "web/portrait.webp", width: 900, height: 1600, format: .webp, alpha: true))
        items.append(Item(name: "web/compact.avif", width: 800, height: 600, format: .avif))
        items.append(Item(name: "web/animation.gif", width: 320, height: 240, format: .gif))
        return items
    }()

    /// Writes the set when `root` holds no visible entry; returns how many files it wrote.
    static func populateIfEmpty(root: String) throws -> Int {
        let fm = FileManager.default
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        let existing = try fm.contentsOfDirectory(atPath: root).filter { !$0.hasPrefix(".") }
        guard existing.isEmpty else { return 0 }
        for (seed, item) in items.enumerated() {
            let url = URL(fileURLWithPath: root).appendingPathComponent(item.name)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(try encode(item, seed: seed)).write(to: url, options: .atomic)
        }
        return items.count
    }

    static func encode(_ item: Item, seed: Int) throws -> [UInt8] {
        if item.format == .gif {
            let frames = try (0..<6).map { try ImageSynthesis.pattern(width: item.width, height: item.height, seed: seed + $0 * 3) }
            return try ImageSynthesis.animation(frames, delay: 150).encode(.gif)
        }
        let image = try ImageSynthesis.pattern(width: item.width, height: item.height, bands: item.alpha ? 4 : 3, seed: seed)
        return try image.encode(item.format, quality: 85)
    }
}
