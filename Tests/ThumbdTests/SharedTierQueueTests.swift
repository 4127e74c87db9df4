import Cache
import Clocks
import Foundation
import Logging
import Testing
@testable import ThumbdCore

/// The shared tier's write queue is bounded, by count and by bytes: writes past it are dropped
/// and counted, never queued. The store is a socket that accepts connections and never
/// answers, so the write under way holds its place for the whole timeout.
@Suite struct SharedTierQueueTests {
    /// A listening socket on 127.0.0.1 that never accepts: connections complete in the kernel
    /// and requests wait for an answer that never comes.
    final class SilentStore {
        let fd: Int32
        let port: Int

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 16) == 0 else {
                close(fd)
                throw POSIXError(.EADDRINUSE)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    static func tier(_ store: SilentStore, queueLimit: Int, queueBytes: Int) -> SharedTier {
        let client = S3Client(location: S3Location(parsing: "s3://tier/")!,
                              endpoint: S3Endpoint(endpoint: "http://127.0.0.1:\(store.port)", region: "us-east-1", pathStyle: true)!,
                              region: "us-east-1", accessKey: "access", secretKey: "secret", connectTimeout: 1,
                              transfer: TransferLimits(timeout: 1))
        return SharedTier(store: SharedStore(client: client, clock: SystemClock(), logger: Logger(label: "test")),
                          queueLimit: queueLimit, queueBytes: queueBytes)
    }

    static func variant(_ size: Int) -> CachedVariant {
        CachedVariant(bytes: [UInt8](repeating: 7, count: size), contentType: "image/webp", etag: "t1", lastModified: 0)
    }

    @Test func writesPastTheCountAreDroppedWhileOneIsUnderWay() throws {
        let store = try SilentStore()
        let tier = Self.tier(store, queueLimit: 1, queueBytes: 1 << 20)
        for i in 0..<3 { tier.write(CacheKey("img|a.jpg|v|w=\(i)"), sourcePrefix: "img|a.jpg|", Self.variant(100)) }
        #expect(tier.counters.drops.count == 2)
        tier.flush()
        // The one sent waited out the timeout: an error, no write.
        #expect(tier.counters.errors.count == 1 && tier.counters.writes.count == 0)
    }

    @Test func aWritePastTheBytesIsDropped() throws {
        let store = try SilentStore()
        let tier = Self.tier(store, queueLimit: 10, queueBytes: 1000)
        tier.write(CacheKey("img|a.jpg|v|w=1"), sourcePrefix: "img|a.jpg|", Self.variant(1001))
        #expect(tier.counters.drops.count == 1)
        tier.write(CacheKey("img|a.jpg|v|w=2"), sourcePrefix: "img|a.jpg|", Self.variant(600))
        tier.write(CacheKey("img|a.jpg|v|w=3"), sourcePrefix: "img|a.jpg|", Self.variant(600))
        #expect(tier.counters.drops.count == 2)
        tier.flush()
    }
}
