import Cache
import PropertyBased
import Testing

@Suite struct LRUCacheTests {
    @Test func evictsLeastRecentlyUsedByCost() {
        var cache = LRUCache<String, Int>(capacity: 10)
        cache.put("a", 1, cost: 4)
        cache.put("b", 2, cost: 4)
        #expect(cache.get("a") == 1)  // a is now most recent
        let evicted = cache.put("c", 3, cost: 4)
        #expect(evicted == ["b"])
        #expect(cache.keysByRecency == ["c", "a"])
        #expect(cache.totalCost == 8)
        #expect(cache.evictions == 1)
    }

    @Test func replacingAKeyUpdatesItsCost() {
        var cache = LRUCache<String, Int>(capacity: 10)
        cache.put("a", 1, cost: 6)
        cache.put("a", 2, cost: 3)
        #expect(cache.totalCost == 3)
        #expect(cache.count == 1)
        #expect(cache.peek("a") == 2)
    }

    @Test func valuesLargerThanTheCapacityAreNotStored() {
        var cache = LRUCache<String, Int>(capacity: 10)
        cache.put("small", 1, cost: 5)
        #expect(cache.put("huge", 2, cost: 11).isEmpty)
        #expect(cache.get("huge") == nil)
        #expect(cache.get("small") == 1)
        var empty = LRUCache<String, Int>(capacity: 0)
        empty.put("x", 1, cost: 1)
        #expect(empty.count == 0)
    }

    @Test func removeFreesCost() {
        var cache = LRUCache<Int, Int>(capacity: 100)
        for i in 0..<10 { cache.put(i, i, cost: 10) }
        #expect(cache.remove(3) == 3)
        #expect(cache.totalCost == 90)
        cache.put(99, 99, cost: 10)
        #expect(cache.count == 10)
        #expect(cache.get(0) == 0)
    }

    /// A value that counts how many of its kind are alive.
    final class Counted {
        nonisolated(unsafe) static var alive = 0
        init() { Self.alive += 1 }
        deinit { Self.alive -= 1 }
    }

    @Test func evictedAndRemovedValuesAreLetGoAtOnce() {
        var cache = LRUCache<Int, Counted>(capacity: 30)
        for i in 0..<3 { cache.put(i, Counted(), cost: 10) }
        #expect(Counted.alive == 3)
        // One larger value evicts all three: none may stay alive in a free slot.
        cache.put(9, Counted(), cost: 30)
        #expect(Counted.alive == 1 && cache.count == 1)
        cache.remove(9)
        _ = cache.removeAll { _, _ in true }
        #expect(Counted.alive == 0)
    }

    @Test func aLowerCapacityEvictsTheLeastRecentToFitAndAHigherOneKeepsAll() {
        var cache = LRUCache<String, Int>(capacity: 100)
        for (key, cost) in [("a", 30), ("b", 30), ("c", 30)] { cache.put(key, 0, cost: cost) }
        _ = cache.get("a")
        #expect(cache.setCapacity(50) == 60)
        #expect(cache.keysByRecency == ["a"] && cache.totalCost == 30 && cache.capacity == 50)
        #expect(cache.put("d", 0, cost: 30) == ["a"])
        #expect(cache.setCapacity(100) == 0 && cache.keysByRecency == ["d"])
    }

    enum Op: Sendable {
        case put(Int, Int)  // key, cost
        case get(Int)
        case remove(Int)
    }

    static let ops = Generator<[Op], Shrink.None<[Op]>> { rng in
        (0..<Int.random(in: 1...300, using: &rng)).map { _ in
            let key = Int.random(in: 0..<20, using: &rng)
            switch Int.random(in: 0...9, using: &rng) {
            case 0...4: return .put(key, Int.random(in: 0...40, using: &rng))
            case 5...8: return .get(key)
            default: return .remove(key)
            }
        }
    }

    /// Against a simple model: the byte bound always holds, a key never yields another
    /// key's value, and recency order matches a list kept the slow way.
    @Test func randomInterleavingsMatchAModel() async {
        await propertyCheck(count: 300, input: Self.ops) { ops in
            var cache = LRUCache<Int, Int>(capacity: 100)
            var model: [(key: Int, cost: Int)] = []  // most recent first
            for (step, op) in ops.enumerated() {
                switch op {
                case .put(let key, let cost):
                    cache.put(key, key * 1000 + step, cost: cost)
                    model.removeAll { $0.key == key }
                    if cost <= 100 {
                        while model.reduce(0, { $0 + $1.cost }) + cost > 100 { model.removeLast() }
                        model.insert((key, cost), at: 0)
                    }
                case .get(let key):
                    let value = cache.get(key)
                    if let value { #expect(value / 1000 == key) }
                    #expect((value != nil) == model.contains { $0.key == key })
                    if let i = model.firstIndex(where: { $0.key == key }) { model.insert(model.remove(at: i), at: 0) }
                case .remove(let key):
                    cache.remove(key)
                    model.removeAll { $0.key == key }
                }
                #expect(cache.totalCost <= 100)
                #expect(cache.totalCost == model.reduce(0) { $0 + $1.cost })
                #expect(cache.keysByRecency == model.map(\.key))
            }
        }
    }
}
