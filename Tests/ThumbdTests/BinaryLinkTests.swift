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

    /// Checks that the binary's dynamic linker, binding every symbol at load (`LD_BIND_NOW`,
    /// `LD_DEBUG=bindings`), binds each of `names` that `library` calls to the binary's own
    /// definition: a stand-in the executable does not export is bound to the library's.
    func expectBoundToTheBinary(library: String, _ names: [String]) throws {
        let run = try runProgram(ShutdownTests.binary.path, ["--version"], environment: ["LD_DEBUG": "bindings", "LD_BIND_NOW": "1"],
                                 timeout: 60)
        #expect(run.status == 0, "\(run.errors.suffix(500))")
        for name in names {
            let bindings = run.errors.split(separator: "\n").filter { $0.contains(library) && $0.contains("`\(name)'") }
            #expect(!bindings.isEmpty, "\(library) binds no \(name)")
            for binding in bindings {
                #expect(binding.contains("/thumbd [0]: normal symbol"), "\(binding)")
            }
        }
    }

    /// libquadmath's printf handlers reach the binary's refusing stand-ins (`printfhooks.c`), not
    /// glibc, only if the executable exports them.
    @Test func theBinaryRefusesLibquadmathsPrintfHandlers() throws {
        try expectBoundToTheBinary(library: "libquadmath", ["register_printf_specifier", "register_printf_modifier", "register_printf_type"])
    }

    /// libjpeg's large buffers reach the shim's pool (`jpegscratch.c`) only if the executable
    /// exports its definitions.
    @Test func libjpegTakesItsLargeBuffersFromTheBinary() throws {
        try expectBoundToTheBinary(library: "libjpeg", ["jpeg_get_large", "jpeg_free_large"])
    }
}
