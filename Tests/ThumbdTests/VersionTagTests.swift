import Clocks
import FileSystem
import Foundation
import HTTP
import Imaging
import Testing
import ThumbdProtocol
@testable import Thumbd
@testable import ThumbdCore

/// Cache keys and ETags written by earlier builds stay valid: each kind of source version,
/// made by the code that makes it in production, gives the same key and ETags as the build
/// that wrote the disk entries and answered the clients before.
@Suite struct VersionTagTests {
    static let request: ThumbnailRequest = {
        let transform = try! TransformParser(presets: [:], maxDimension: 4096, defaultQuality: 80)
            .transform(QueryParameters(parsing: "w=300&h=200&fit=cover&fm=webp"))!
        return ThumbnailRequest(transform: transform)
    }()

    /// What a client or a disk entry holds of a thumbnail of `version`.
    static func written(_ source: SourceName, _ version: SourceVersion) -> String {
        let identity = ThumbnailIdentity(source: source, version: version, request: request)
        return [identity.key.text, ThumbnailIdentity.etag(sourceVersion: identity.versions, options: identity.options),
                ThumbnailIdentity.originalETag(sourceVersion: "\(version.tag)")].joined(separator: " ")
    }

    /// A library file at a fixed size and modification time, read through the folder backend.
    @Test func aLibraryFilesKeysAreThoseOfEarlierBuilds() throws {
        // A JPEG padded to a fixed length (bytes after its end are ignored), whatever libvips writes.
        let jpeg = try ImageSynthesis.pattern(width: 64, height: 48).encode(.jpeg)
        #expect(jpeg.count < 5000)
        let f = try LibraryFixture(files: ["a.jpg": jpeg + [UInt8](repeating: 0, count: 5000 - jpeg.count)])
        let file = f.libraryPath + "/a.jpg"
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789), timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789)]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
        let library = FolderLibrary(library: try ImageLibrary(root: f.libraryPath), fields: { _ in HTTPHeaders() },
                                    smallOriginals: 0, clock: ManualClock())
        let path = try LibraryPath(encoded: "a.jpg")
        let version = try #require(try library.source(path, watermark: nil).source.knownVersion)
        #expect(Self.written(library.sourceName(path), version) == "img|a.jpg|o17979cfe3d85cd15-1388|w=300,h=200,fit=cover,crop=center,enlarge=0,fm=webp,q=80|webp "
                + "t22d1a58421312e3f7c6ac7233000d6e8 o152ec4f325b6ff699c359af110f11e93")
    }

    @Test func anOriginsKeysAreThoseOfEarlierBuilds() {
        let body: [UInt8] = Array("not really an image".utf8)
        let url = "https://images.example.com/a.jpg"
        let options = "w=300,h=200,fit=cover,crop=center,enlarge=0,fm=webp,q=80|webp"
        let cases: [(etag: String?, lastModified: Int, written: String)] = [
            ("\"abc-123\"", 0, "proxy|\(url)|e\"abc-123\"|\(options) te57365a60c6a4dfd87035e4f3d321d8a o7d9a48444ff300630aaa8711b5d2c60d"),
            (nil, 1_700_000_000, "proxy|\(url)|m1700000000|\(options) te030cc7a5ac11540b599d1670ddb8b93 o7fe08b80408517542da735270ae84578"),
            (nil, 0, "proxy|\(url)|c52a4debc-19|\(options) t9d64d56d283bf19776c63fb798a87653 o19a81f0fd8ffad21be2e43a9c4c100de"),
        ]
        for (etag, lastModified, written) in cases {
            let tag = HTTPOrigin.versionTag(etag: etag, lastModified: lastModified, body: body)
            let version = SourceVersion(tag: tag, format: .jpeg, lastModified: lastModified, byteCount: body.count)
            #expect(Self.written(.remote(url), version) == written)
        }
    }

    @Test func anS3ObjectsKeysAreThoseOfEarlierBuilds() throws {
        let response = S3Response(status: 200, body: [1, 2, 3], etag: "\"9b2cf535f27731c974343645a3985328\"",
                                  lastModified: "Tue, 14 Nov 2023 22:13:20 GMT", contentLength: 3)
        let version = try #require(response.version(format: .png))
        #expect(Self.written(.s3(bucket: "photos", key: "trips/a.png"), version) == "s3|photos/trips/a.png|e\"9b2cf535f27731c974343645a3985328\"|w=300,h=200,fit=cover,crop=center,enlarge=0,fm=webp,q=80|webp "
                + "t207547a37708c4c67c33d1b4f1442ab3 o0c8f7e0edc810e96945d9df8ed22a23f")
    }

    /// Originals on disk keep their tag as text: every kind reads back as what was written,
    /// and text no build wrote is no tag (the entry is a miss).
    @Test func everyKindReadsBackFromItsText() {
        let tags = [VersionTag(.file(modifiedNanos: 1_700_000_000_123_456_789, size: 5000)), VersionTag(.file(modifiedNanos: -1, size: 0)),
                    VersionTag(.entityTag("\"abc\"")), VersionTag(.entityTag("W/\"x-y\"")), VersionTag(.modified(seconds: 1_700_000_000)),
                    VersionTag(.checksum(crc: 0xDEAD_BEEF, length: 19))]
        for tag in tags {
            let read = VersionTag(text: tag.text)
            #expect(read == tag && read?.kind == tag.kind, "\(tag.text)")
        }
        for text in ["", "x1", "m", "m-5", "m007", "o12", "ozz-1", "c1-2-3", "cff-x"] {
            #expect(VersionTag(text: text) == nil, "\(text)")
        }
    }

    /// A library file's tag is the one its original's ETag has always been made from.
    @Test func aFilesTagIsItsVersionsTag() {
        let file = FileVersion(device: 1, inode: 2, size: 5000, modifiedNanos: 1_700_000_000_123_456_789, changedNanos: 3)
        #expect(VersionTag(.file(modifiedNanos: file.modifiedNanos, size: file.size)).text == "o" + file.tag)
    }
}
