import Foundation
import Imaging
import Locking
import Testing
import ThumbdProtocol

/// liborc 0.4.33 hands out and merges its code chunks without a lock; the shim puts every
/// program compile and free under one (`orcguard.c`). Without it, a plain C loop over libvips
/// on 4 threads crashes within seconds on small images.
@Suite struct OrcGuardTests {
    /// A small JPEG whose resize compiles orc programs (the reducers libvips builds).
    func source(seed: Int) throws -> [UInt8] {
        try ImageSynthesis.pattern(width: 200, height: 150, seed: seed).encode(.jpeg)
    }

    func thumbnail(_ data: [UInt8], width: Int, height: Int) throws -> ImageTransformer.Output {
        let header = try ImageTransformer.checkedHeader(data, maxPixels: 1_000_000)
        let options = TransformOptions(width: width, height: height, fit: .cover, format: .jpeg)
        return try ImageTransformer.transform(data, header: header, options: options.resolved(for: ImageFormat.sniff(data)))
    }

    @Test func libvipsCompilesAndFreesOrcProgramsUnderTheShimsLock() throws {
        Vips.start()
        // The stand-ins are what the process resolves orc's names to, as libvips' calls do.
        #expect(ProcessGuards.orcGuarded)
        let before = ProcessGuards.orcGuardedCalls
        _ = try thumbnail(try source(seed: 1), width: 37, height: 23)
        #expect(ProcessGuards.orcGuardedCalls > before, "a resize compiled and freed no orc program through the lock")
    }

    @Test func manyTransformsAtOnceOnSmallImages() throws {
        let sources = try (0..<4).map { try source(seed: $0) }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for i in 0..<300 {
                do {
                    let out = try thumbnail(sources[thread], width: 20 + i % 40, height: 20 + i % 30)
                    if out.width != 20 + i % 40 { failures.withLock { $0.append("thread \(thread): width \(out.width)") } }
                } catch {
                    failures.withLock { $0.append("thread \(thread): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
    }
}
