import CProcessGuards
import Imaging
import Testing
import ThumbdProtocol

/// libjpeg's large buffers come from the shim's pool (`jpegscratch.c`): kept between decodes
/// up to a capacity, the newest kept first, all unmapped on `release`.
@Suite struct DecoderScratchTests {
    static let mib = 1 << 20

    /// A pool of its own, so the decodes other tests run at the same time do not touch it.
    final class Pool {
        let pointer: OpaquePointer
        init(capacity: Int) { pointer = pg_scratch_new(capacity)! }
        deinit { pg_scratch_free(pointer) }
        var stats: pg_scratch_stats { pg_scratch_read_stats(pointer) }

        /// A buffer of `size` bytes with every page written, as libjpeg zeroes its coefficients.
        func take(_ size: Int, filling byte: UInt8 = 0xA5) -> UnsafeMutableRawPointer {
            let buffer = pg_scratch_take(pointer, size)!
            buffer.initializeMemory(as: UInt8.self, repeating: byte, count: size)
            return buffer
        }

        func give(_ buffer: UnsafeMutableRawPointer) { pg_scratch_give(pointer, buffer) }
    }

    @Test func aFreedBufferIsReusedForTheNextRequestOfItsSize() {
        let pool = Pool(capacity: 64 * Self.mib)
        let first = pool.take(8 * Self.mib)
        pool.give(first)
        #expect(pool.stats.kept_bytes >= 8 * Self.mib)
        let second = pool.take(8 * Self.mib - 4096)
        #expect(second == first)
        #expect(pool.stats.maps == 1 && pool.stats.reuses == 1)
        #expect(pool.stats.kept_bytes == 0)
        pool.give(second)
    }

    @Test func aBufferMoreThanTwiceTheRequestIsNotHandedOut() {
        let pool = Pool(capacity: 64 * Self.mib)
        let big = pool.take(20 * Self.mib)
        pool.give(big)
        let small = pool.take(4 * Self.mib)
        #expect(small != big)
        #expect(pool.stats.maps == 2 && pool.stats.reuses == 0)
        #expect(pool.stats.kept_bytes >= 20 * Self.mib, "the large buffer stays kept")
        pool.give(small)
    }

    @Test func theSmallestBufferThatServesIsChosen() {
        let pool = Pool(capacity: 64 * Self.mib)
        let large = pool.take(12 * Self.mib), middle = pool.take(7 * Self.mib)
        pool.give(large)
        pool.give(middle)
        #expect(pool.take(6 * Self.mib) == middle)
        #expect(pool.take(6 * Self.mib) == large)
    }

    @Test func keptBytesStayWithinTheCapacityAndTheOldestMakeRoom() {
        let pool = Pool(capacity: 20 * Self.mib)
        let a = pool.take(8 * Self.mib), b = pool.take(8 * Self.mib), c = pool.take(8 * Self.mib)
        pool.give(a)
        pool.give(b)
        pool.give(c)
        #expect(pool.stats.kept_bytes <= 20 * Self.mib)
        // a went to make room for c: b and c are handed out again, then a new one is mapped.
        let first = pool.take(8 * Self.mib), second = pool.take(8 * Self.mib), third = pool.take(8 * Self.mib)
        #expect(Set([first, second]) == Set([b, c]))
        #expect(pool.stats.maps == 4 && pool.stats.reuses == 2)
        for buffer in [first, second, third] { pool.give(buffer) }
    }

    @Test func aBufferOverTheCapacityIsUnmappedAtOnce() {
        let pool = Pool(capacity: 4 * Self.mib)
        pool.give(pool.take(8 * Self.mib))
        #expect(pool.stats.kept_bytes == 0)
    }

    @Test func releaseUnmapsEverythingKeptAndALowerCapacityTrims() {
        let pool = Pool(capacity: 64 * Self.mib)
        pool.give(pool.take(8 * Self.mib))
        pool.give(pool.take(20 * Self.mib))
        #expect(pool.stats.kept_bytes >= 28 * Self.mib)
        pg_scratch_release(pool.pointer)
        #expect(pool.stats.kept_bytes == 0)
        pool.give(pool.take(8 * Self.mib))
        pg_scratch_set_capacity(pool.pointer, 1 * Self.mib)
        #expect(pool.stats.kept_bytes == 0)
        #expect(pool.stats.capacity == 1 * Self.mib)
    }

    @Test func aReusedBufferHoldsTheWholeRequest() {
        let pool = Pool(capacity: 64 * Self.mib)
        pool.give(pool.take(3 * Self.mib, filling: 1))
        let buffer = pool.take(3 * Self.mib, filling: 2)
        let bytes = buffer.bindMemory(to: UInt8.self, capacity: 3 * Self.mib)
        #expect(bytes[0] == 2 && bytes[3 * Self.mib - 1] == 2)
        #expect(Int(bitPattern: buffer) % 16 == 0, "libjpeg's alignment")
        pool.give(buffer)
    }

    /// The process resolves libjpeg's large allocations to the shim, and a progressive JPEG's
    /// coefficients (2 bytes per sample, 1200 x 1200 here) go through it.
    @Test func libjpegsLargeBuffersComeFromThePool() throws {
        Vips.start()
        #expect(DecoderScratch.servesLibjpeg)
        let source = try ImageSynthesis.pattern(width: 1200, height: 1200, seed: 7).encode(.jpeg, quality: 85, progressive: true)
        let before = DecoderScratch.counts
        let header = try ImageTransformer.checkedHeader(source, maxPixels: 10_000_000)
        let options = TransformOptions(width: 120, height: 90, fit: .cover, format: .jpeg)
        let output = try ImageTransformer.transform(source, header: header, options: options.resolved(for: ImageFormat.sniff(source)))
        #expect(output.width == 120 && output.height == 90)
        let after = DecoderScratch.counts
        #expect(after.maps + after.reuses > before.maps + before.reuses, "the decode took no large buffer from the pool")
    }
}
