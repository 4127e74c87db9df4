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

    /// libquadmath's printf handlers reach the binary's refusing stand-ins (`printfhooks.c`), not
    /// glibc, only if the executable exports them; the dynamic linker says where it bound them.
    @Test func theBinaryRefusesLibquadmathsPrintfHandlers() throws {
        let run = try runProgram(ShutdownTests.binary.path, ["--version"], environment: ["LD_DEBUG": "bindings"], timeout: 60)
        #expect(run.status == 0, "\(run.errors.suffix(500))")
        let bindings = run.errors.split(separator: "\n").filter { $0.contains("libquadmath") && $0.contains("register_printf_") }
        #expect(!bindings.isEmpty, "libquadmath registered no printf handler: drop printfhooks.c")
        for binding in bindings {
            #expect(binding.contains("/thumbd [0]: normal symbol"), "\(binding)")
        }
    }

    /// libjpeg's large buffers reach the shim's pool (`jpegscratch.c`) only if the executable
    /// exports its definitions; bound at load (`LD_BIND_NOW`), the dynamic linker names them.
    @Test func libjpegTakesItsLargeBuffersFromTheBinary() throws {
        let run = try runProgram(ShutdownTests.binary.path, ["--version"], environment: ["LD_DEBUG": "bindings", "LD_BIND_NOW": "1"],
                                 timeout: 60)
        #expect(run.status == 0, "\(run.errors.suffix(500))")
        for name in ["jpeg_get_large", "jpeg_free_large"] {
            let bindings = run.errors.split(separator: "\n").filter { $0.contains("libjpeg") && $0.contains("`\(name)'") }
            #expect(!bindings.isEmpty, "libjpeg binds no \(name)")
            for binding in bindings {
                #expect(binding.contains("/thumbd [0]: normal symbol"), "\(binding)")
            }
        }
    }
}
