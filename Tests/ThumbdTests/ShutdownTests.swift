import Foundation
import Testing
import TestSupport

/// The real binary, stopped with SIGTERM in the middle of a slow download.
@Suite struct ShutdownTests {
    /// The `thumbd` executable built next to the test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("thumbd")
    }

    struct StartFailure: Error { let output: String }

    final class Server {
        let process = Process()
        let port: Int
        /// Standard error up to the start-up line naming the port.
        let startOutput: String

        init(library: String, cache: String) throws {
            process.executableURL = ShutdownTests.binary
            process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--library", library, "--cache-dir", cache]
            process.environment = ["THUMBD_LIBRARY_DEMO": "false", "THUMBD_LOGGING_ACCESS": "false", "THUMBD_SERVER_DRAIN_SECONDS": "20"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var seen = ""
            var port: Int?
            while port == nil {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
                if let range = seen.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    port = Int(seen[range].split(separator: ":").last!)
                }
            }
            guard let port else { throw StartFailure(output: seen) }
            self.port = port
            startOutput = seen
            // Keep draining stderr so the process never blocks on a full pipe.
            errors.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
        }
    }

    /// Terminates `server` and waits for it (killing it after 30 s, which fails the test).
    static func stop(_ server: Server) {
        server.process.terminate()
        let deadline = Date().addingTimeInterval(30)
        while server.process.isRunning && Date() < deadline { usleep(20_000) }
        #expect(!server.process.isRunning, "thumbd did not exit within 30 s of SIGTERM")
        if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) }
        server.process.waitUntilExit()
    }

    /// The handlers are in place before the start-up line: a SIGTERM sent as soon as it is read
    /// is not lost (it once was, between ignoring the signal and listening for it).
    @Test func aSigtermRightAfterTheStartUpLineDrainsAndExitsZero() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-early-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("library"), withIntermediateDirectories: true)
        for _ in 0..<5 {
            let server = try Server(library: root.appendingPathComponent("library").path, cache: root.appendingPathComponent("cache").path)
            Self.stop(server)
            #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
        }
    }

    @Test func sigtermLetsASlowDownloadFinishRefusesNewConnectionsAndExitsZero() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the thumbd product first")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-shutdown-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("library"), withIntermediateDirectories: true)
        let original = LibraryFixture.fakeJPEG(6_000_000, seed: 11)
        try Data(original).write(to: root.appendingPathComponent("library/big.jpg"))
        let server = try Server(library: root.appendingPathComponent("library").path, cache: root.appendingPathComponent("cache").path)

        // A client that reads slowly: 32 KiB every 10 ms.
        let client = try RawHTTPClient(port: server.port, timeout: 30)
        try client.send(RawHTTPClient.requestText("GET", "/img/big.jpg"))
        var received: [UInt8] = []
        func readSlowly(until count: Int) {
            var chunk = [UInt8](repeating: 0, count: 32 * 1024)
            while received.count < count {
                let n = recv(client.fd, &chunk, chunk.count, 0)
                if n <= 0 { return }
                received += chunk[0..<n]
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        readSlowly(until: 500_000)
        kill(server.process.processIdentifier, SIGTERM)

        // New connections are refused once the listener is closed.
        var refused = false
        for _ in 0..<200 where !refused {
            refused = (try? RawHTTPClient(port: server.port, timeout: 1)) == nil
            if !refused { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(refused)

        readSlowly(until: Int.max)
        // At the end of the response the client closes its side, as curl and browsers do:
        // until then the draining server waits, so that no byte is lost on its way.
        shutdown(client.fd, Int32(SHUT_WR))
        let headEnd = try #require(TestBytes.firstIndex(of: [13, 10, 13, 10], in: received))
        let head = String(decoding: received[..<headEnd], as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(Array(received[(headEnd + 4)...]) == original)
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 0)
    }
}
