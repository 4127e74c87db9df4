import Foundation
import Testing
import TestSupport
import Thumbd
import ThumbdCore
import ThumbdKit
import ThumbdKitTesting

/// The classic bug of reused cells: an image for the item a cell showed before arrives late and
/// replaces the current one. 1,000 items, 12 slots rebound at random while completions are
/// delayed at random: with the safety on, no slot ever receives another item's image and each
/// ends showing its own; with it off, the same scroll must see wrong deliveries (so the test
/// can fail).
@Suite(.serialized) struct SlotReuseTests {
    static let library: [String: [UInt8]] = {
        var files: [String: [UInt8]] = [:]
        for i in 0..<20 { files["s/\(i).jpg"] = try! TestImages.photo(width: 64, height: 48, seed: i) }
        return files
    }()

    /// What the slots received during one scroll.
    @MainActor final class ScrollLog {
        var deliveries = 0
        var wrongDeliveries = 0
        var shown: [Int: URL] = [:]

        func record(slot: Int, delivered url: URL, holding current: URL?, result: Result<ImageResponse<TestImage>, any Error>) {
            deliveries += 1
            if url != current { wrongDeliveries += 1 }
            if case .success = result { shown[slot] = url }
        }
    }

    @MainActor
    func scroll(_ items: [URL], rebinds: Int, checksDeliveries: Bool) async -> (log: ScrollLog, slots: [ImageSlot<TestImage>], loader: ThumbdLoader<TestImage>) {
        let transport = ThrottledTransport(wrapping: URLSessionTransport(), settings: .init(jitter: 0.03))
        let loader = ThumbdLoader(configuration: .init(memoryCapacity: 256 << 10), transport: transport, decode: TestImage.decode)
        let log = ScrollLog()
        var slots: [ImageSlot<TestImage>] = []
        for index in 0..<12 {
            let slot = ImageSlot(loader: loader, checksDeliveries: checksDeliveries)
            slot.onDelivery = { [unowned slot] url, result in
                log.record(slot: index, delivered: url, holding: slot.url, result: result)
            }
            slots.append(slot)
        }
        var random = SplitMix64(seed: checksDeliveries ? 1 : 2)
        for _ in 0..<rebinds {
            let slot = slots[Int(random.next() % UInt64(slots.count))]
            slot.bind(items[Int(random.next() % UInt64(items.count))])
            // A frame of scrolling: lets deliveries in between rebinds.
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return (log, slots, loader)
    }

    @Test @MainActor func everyDeliveryIsForTheItemTheSlotHolds() async throws {
        let server = try ThumbdServer(files: Self.library) { $0.limits.queue = 2000 }
        defer { withExtendedLifetime(server) {} }
        // 1,000 distinct URLs: 20 sources at 50 widths.
        let items = (0..<1000).map { server.builder.imageURL("s/\($0 % 20).jpg", options: .init(width: 8 + $0 / 20)) }
        #expect(Set(items).count == 1000)

        let safe = await scroll(items, rebinds: 400, checksDeliveries: true)
        let settled = await until {
            safe.slots.indices.allSatisfy { safe.slots[$0].url != nil && safe.log.shown[$0] == safe.slots[$0].url }
        }
        #expect(settled, "every slot ends showing its own item")
        #expect(safe.log.deliveries > 0)
        #expect(safe.log.wrongDeliveries == 0)
        #expect(safe.loader.counters.transfersCancelled > 0)

        // The same scroll without the safety: late answers land on slots that moved on.
        let unsafe = await scroll(items, rebinds: 400, checksDeliveries: false)
        // Without cancellation every bind is answered exactly once.
        let everyBindAnswered = await until { unsafe.log.deliveries == 400 }
        #expect(everyBindAnswered)
        #expect(unsafe.log.wrongDeliveries > 0)
        print("slot reuse: with the safety \(safe.log.deliveries) deliveries, 0 wrong; without it \(unsafe.log.wrongDeliveries) of \(unsafe.log.deliveries) wrong")
    }

    /// The second safety alone: A's load finishes while the main actor is held (so its
    /// delivery waits), and the slot is bound to B in that same turn. Cancelling A's task
    /// then comes too late to change its result; only the generation check stands between the
    /// cell and A's image.
    @Test @MainActor func aResultThatArrivedBeforeTheRebindIsDroppedByTheGenerationCheck() async throws {
        let server = try ThumbdServer(files: Self.library)
        defer { withExtendedLifetime(server) {} }
        let loader = ThumbdLoader(configuration: .init(memoryCapacity: 1 << 20), transport: URLSessionTransport(), decode: TestImage.decode)
        let slot = ImageSlot(loader: loader)
        var delivered: [URL] = []
        slot.onDelivery = { url, _ in delivered.append(url) }
        let a = server.builder.imageURL("s/1.jpg", options: .init(width: 30))
        let b = server.builder.imageURL("s/2.jpg", options: .init(width: 31))
        slot.bind(a)
        // The slot's task starts on the main actor and hands the load to the loader...
        #expect(await until { loader.counters.requestsSent == 1 })
        // ...then the main actor is held here, without a suspension point, until A's load has
        // finished off it: its delivery now waits for the main actor.
        let deadline = Date().addingTimeInterval(20)
        while loader.counters.networkLoads < 1 && Date() < deadline { usleep(1000) }
        #expect(loader.counters.networkLoads == 1, "A's load finished while the main actor was held")
        slot.bind(b)
        let settled = await until { delivered.contains(b) }
        #expect(settled)
        #expect(delivered == [b], "delivered \(delivered.map(\.path))")
    }
}
