import Foundation
import Testing
import TestSupport

/// What only the `thumbd` executable itself shows: the test runners are linked exporting every
/// symbol, the server is not.
@Suite struct BinaryLinkTests {
    /// liborc's compile and free reach the shim's lock only if the executable exports its
    /// stand-ins (Package.swift); otherwise thumbd turns libvips' vector code off and says so.
    @Test func theBinaryPutsOrcBehindTheShimsLock() throws {
        #expect(FileManager.default.isExecutableFile(atPath: ShutdownTests.binary.path), "build the thumbd product first")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-link-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("library"), withIntermediateDirectories: true)
        let server = try ShutdownTests.Server(library: root.appendingPathComponent("library").path,
                                              cache: root.appendingPathComponent("cache").path)
        defer { ShutdownTests.stop(server) }
        #expect(server.startOutput.contains("libvips.vector=guarded"), "\(server.startOutput)")
        #expect(!server.startOutput.contains("vector code is off"))
    }
}
