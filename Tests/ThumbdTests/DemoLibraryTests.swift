import Foundation
import Imaging
import Testing
import TestSupport
import ThumbdProtocol
@testable import Thumbd
@testable import ThumbdCore

/// The demo set: real photographs with their authors where mate-backgrounds is installed,
/// generated ones where it is not, and the generated PNG, WebP, AVIF and GIF cases always.
@Suite struct DemoLibraryTests {
    static let copyright = """
        Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
        Upstream-Name: MATE Backgrounds

        Files: nature/Aqua.jpg
               nature/LadyBird.jpg
        Copyright: 2008, Charles Barbin <barbinch@free.fr>´
        License: GPL-2+

        Files: nature/Blinds.jpg
        Copyright: 2008, Lennart Poettering <mztabzr@0pointer.de>
                   2008, Andrea Cimitan
        License: GPL-2+

        Files: nature/RainDrops.jpg
        Copyright: 2008, "blackcombwhistler07" <blackcombwhistler07@googlemail.com>
        License: GPL-2+

        Files: desktop/Float-into-MATE.png
        Copyright: 2013, François Vogelweith (Bisigi project)
                   2014, Joseph "Rowen Stipe" Krieger <rowen.stipe@gmail.com>
        License: GPL-2+
        """

    func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func files(under root: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: root.path)
        return (walker?.allObjects as? [String] ?? []).filter { !$0.hasSuffix("/") && $0.contains(".") }.sorted()
    }

    @Test func theCopyrightFileNamesEachPhotosAuthors() {
        let authors = DemoPhotos.authors(inCopyright: Self.copyright)
        #expect(authors["nature/Aqua.jpg"] == ["Charles Barbin"] && authors["nature/LadyBird.jpg"] == ["Charles Barbin"])
        #expect(authors["nature/Blinds.jpg"] == ["Lennart Poettering", "Andrea Cimitan"])
        #expect(authors["nature/RainDrops.jpg"] == ["blackcombwhistler07"])
        #expect(authors["desktop/Float-into-MATE.png"] == ["François Vogelweith", "Joseph Rowen Stipe Krieger"])
    }

    @Test func photosFromThePackageFolderAreCopiedWithTheirAuthorsInTheirXMP() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let nature = folder.appendingPathComponent("nature")
        try FileManager.default.createDirectory(at: nature, withIntermediateDirectories: true)
        let photos = try ["Blinds.jpg", "Aqua.jpg", "Unlisted.jpg"].enumerated().map { i, name in
            let bytes = try ImageSynthesis.pattern(width: 300 + i, height: 200, seed: i).encode(.jpeg)
            try Data(bytes).write(to: nature.appendingPathComponent(name))
            return (name, bytes)
        }
        try Data(Self.copyright.utf8).write(to: folder.appendingPathComponent("copyright"))
        let found = try #require(DemoPhotos(folder: nature.path, copyright: folder.appendingPathComponent("copyright").path))
        #expect(found.photos.map { URL(fileURLWithPath: $0.file).lastPathComponent } == ["Aqua.jpg", "Blinds.jpg", "Unlisted.jpg"])

        let root = folder.appendingPathComponent("library")
        #expect(try DemoLibrary.populateIfEmpty(root: root.path, photos: found) == 3 + DemoLibrary.generatedGraphics.count)
        #expect(files(under: root) == (["photos/photo-01.jpg", "photos/photo-02.jpg", "photos/photo-03.jpg"]
            + DemoLibrary.generatedGraphics.map(\.name)).sorted())
        func copied(_ n: Int) throws -> [UInt8] { [UInt8](try Data(contentsOf: root.appendingPathComponent(DemoLibrary.photoName(n)))) }
        #expect(ImageAuthor.read(try copied(0)) == "Charles Barbin")
        #expect(ImageAuthor.read(try copied(1)) == "Lennart Poettering, Andrea Cimitan")
        #expect(ImageAuthor.read(try copied(2)) == "")
        // The pixels are the package's, untouched.
        let blinds = try #require(photos.first { $0.0 == "Blinds.jpg" }?.1)
        #expect(try copied(1).suffix(blinds.count - 20).elementsEqual(blinds.suffix(blinds.count - 20)))
        // A library with anything in it is left alone.
        #expect(try DemoLibrary.populateIfEmpty(root: root.path, photos: found) == 0)
    }

    @Test func withoutThePackageThePhotosAreGenerated() throws {
        #expect(DemoPhotos(folder: "/nonexistent/nature") == nil)
        let root = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try DemoLibrary.populateIfEmpty(root: root.path, photos: nil) == 24)
        #expect(files(under: root) == (DemoLibrary.generatedPhotos + DemoLibrary.generatedGraphics).map(\.name).sorted())
        let photo = [UInt8](try Data(contentsOf: root.appendingPathComponent("photos/photo-01.jpg")))
        #expect(try ImageHeader.read(photo).width == 1600)
    }

    /// `make test` fetches the demo's photograph of people and its clip (scripts/demo-media.sh,
    /// as `make run` does): a first start writes them, and they show what a new user should
    /// see first: faces found, kept by a face crop and hidden, and a video's poster and preview.
    @Test func theFetchedPeoplePhotoAndClipShowFacesAndAVideo() throws {
        let media = PackageRoot.url.appendingPathComponent(DemoMedia.defaultFolder).path
        let found = try #require(DemoMedia(folder: media), "run scripts/demo-media.sh (make test does)")
        #expect(found.files.map(\.name) == [DemoMedia.people, DemoMedia.clip])
        let f = try LibraryFixture { config in
            config.library.demo = true
            config.library.demoMedia = media
        }
        let client = try RawHTTPClient(port: f.port)
        let info = try client.request("GET", "/v1/images/\(DemoMedia.people)")
        struct Info: Decodable { let width: Int; let faces: [DetectedFace]? }
        let faces = try #require(try JSONDecoder().decode(Info.self, from: Data(info.body)).faces)
        #expect(faces.count == 3 && faces.allSatisfy { ($0.score ?? 0) > 0.9 }, "\(faces)")
        for query in ["w=300&h=200&fit=cover&crop=face", "w=300&redact=face"] {
            #expect(try client.request("GET", "/img/\(DemoMedia.people)?\(query)").status == 200, "\(query)")
        }
        let poster = try client.request("GET", "/img/\(DemoMedia.clip)?w=320&t=2&fm=png")
        #expect(poster.status == 200)
        #expect(try ImageHeader.read(poster.body).width == 160, "never enlarged")
        let preview = try client.request("GET", "/img/\(DemoMedia.clip)?w=160&anim=1&fm=webp")
        #expect(preview.status == 200)
        #expect(try ImageHeader.read(preview.body).pages > 1)
        // The speaker's face, found on the poster frame itself.
        let detections = try PrometheusText(client.request("GET", "/metrics").text).value("thumbd_face_detections_total") ?? 0
        #expect(try client.request("GET", "/img/\(DemoMedia.clip)?w=120&h=120&fit=cover&crop=face&redact=face&t=2").status == 200)
        #expect(try PrometheusText(client.request("GET", "/metrics").text).value("thumbd_face_detections_total") == detections + 1)
    }

    /// On this machine the package is installed (`make run` installs it as root): its twelve
    /// nature photographs, each with the authors Debian's copyright file names.
    @Test func theInstalledPackageGivesRealPhotographsWithAuthors() throws {
        guard let installed = DemoPhotos() else {
            Issue.record("mate-backgrounds is not installed: scripts/ensure-deps.sh installs it as root")
            return
        }
        #expect(installed.photos.count >= 12)
        #expect(installed.photos.allSatisfy { !$0.authors.isEmpty }, "\(installed.photos.filter { $0.authors.isEmpty })")
        let aqua = try #require(installed.photos.first { $0.file.hasSuffix("/Aqua.jpg") })
        #expect(aqua.authors == ["Charles Barbin"])
        #expect(ImageAuthor.read(try DemoLibrary.tagged(aqua)) == "Charles Barbin")
    }
}
