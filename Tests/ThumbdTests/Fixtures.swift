import Clocks
import Foundation
import HTTP
import Thumbd
import TestSupport
import ThumbdCore

/// A temporary library folder with a running thumbd in front of it.
final class LibraryFixture: @unchecked Sendable {
    let root: URL
    let service: ThumbdService
    var port: Int { service.port }

    static let jpegMagic: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
    static let pngMagic: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Bytes with a JPEG signature and deterministic noise after it: originals are served
    /// byte for byte, so they need not decode.
    static func fakeJPEG(_ size: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        var bytes = jpegMagic
        bytes.reserveCapacity(size)
        while bytes.count < size {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return bytes
    }

    init(files: [String: [UInt8]] = [:], clock: any MonotonicClock = SystemClock(), wallClock: any WallClock = SystemWallClock(),
         configure: (inout ThumbdConfig) -> Void = { _ in }) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("library"), withIntermediateDirectories: true)
        for (path, bytes) in files { try Self.write(path, bytes, under: root) }
        var config = ThumbdConfig.forTests(cache: root.appendingPathComponent("cache"))
        config.library.root = root.appendingPathComponent("library").path
        config.library.demo = false
        configure(&config)
        service = try ThumbdService(config: config, clock: clock, wallClock: wallClock)
    }

    func write(_ path: String, _ bytes: [UInt8]) throws {
        try Self.write(path, bytes, under: root)
    }

    static func write(_ path: String, _ bytes: [UInt8], under root: URL) throws {
        let url = root.appendingPathComponent("library").appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    var libraryPath: String { root.appendingPathComponent("library").path }

    deinit {
        service.stop()
        try? FileManager.default.removeItem(at: root)
    }
}

extension ThumbdConfig {
    /// What a thumbd in a test runs with: an ephemeral port on loopback, two event loops, its
    /// disk tier in `cache`, no access log.
    static func forTests(cache: URL) -> ThumbdConfig {
        var config = ThumbdConfig()
        config.server.host = "127.0.0.1"
        config.server.port = 0
        config.server.eventLoops = 2
        config.cache.dir = cache.path
        config.logging.access = false
        config.faces.model = FacePhotos.modelFile
        return config
    }
}
