import Foundation
import Testing
import Thumbd
import ThumbdCore
import ThumbdKit

/// The app's decode function never runs on the caller's actor: called from the main actor,
/// every decode (network and disk) happens elsewhere, and results still come back to it.
@Suite struct DecodeIsolationTests {
    static let photo: [UInt8] = try! TestImages.photo(width: 400, height: 300, seed: 8)

    @Test @MainActor func decodeRunsOffTheMainActor() async throws {
        let server = try ThumbdServer(files: ["p.jpg": Self.photo])
        defer { withExtendedLifetime(server) {} }
        let onMainThread = Recorder<Bool>()
        let decode: @Sendable (Data) throws -> TestImage = { data in
            onMainThread.append(Thread.isMainThread)
            return try TestImage.decode(data)
        }
        let folder = server.clientFolder()
        let url = server.builder.imageURL("p.jpg", options: .init(width: 100))
        let loader = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: decode)
        #expect(try await loader.load(url).outcome == .network)
        let restarted = ThumbdLoader(configuration: .init(diskDirectory: folder), transport: URLSessionTransport(), decode: decode)
        #expect(try await restarted.load(url).outcome == .disk)

        // The callback form: completion on the main actor, decode still elsewhere.
        let other = server.builder.imageURL("p.jpg", options: .init(width: 50))
        let delivered = Recorder<ImageResponse<TestImage>>()
        loader.load(other) { result in
            MainActor.assertIsolated()
            if let response = try? result.get() { delivered.append(response) }
        }
        let answered = await until { !delivered.values.isEmpty }
        #expect(answered)
        #expect(delivered.values.first?.image.width == 50)

        #expect(onMainThread.values.count == 3)
        #expect(onMainThread.values.allSatisfy { !$0 })
    }
}
