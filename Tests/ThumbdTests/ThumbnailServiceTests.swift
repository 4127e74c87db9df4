import Cache
import Clocks
import Foundation
import HTTP
import Imaging
import Locking
import Logging
import Synchronization
import Testing
import TestSupport
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

/// A source under the test's control: counts its loads, can fail or hide its version.
final class StubSource: ThumbnailSource, @unchecked Sendable {
    let name: SourceName
    let bytes: [UInt8]
    let versionKnown: Bool
    let failure: ThumbnailFailure?
    let loads = Counter()
    let gate = DispatchSemaphore(value: 0)
    let gated: Bool

    init(_ name: String, bytes: [UInt8], versionKnown: Bool = true, failure: ThumbnailFailure? = nil, gated: Bool = false) {
        self.name = .remote(name)
        self.bytes = bytes
        self.versionKnown = versionKnown
        self.failure = failure
        self.gated = gated
    }

    var version: SourceVersion { SourceVersion(tag: VersionTag(.entityTag("v1")), format: .jpeg, lastModified: 1_700_000_000, byteCount: bytes.count) }
    var knownVersion: SourceVersion? { versionKnown ? version : nil }

    func load() -> Result<LoadedSource, ThumbnailFailure> {
        loads.increment()
        if gated { gate.wait() }
        if let failure { return .failure(failure) }
        return .success(LoadedSource(version: version, bytes: bytes, step: .read(0.001)))
    }
}

/// Collects what waiters are given.
final class Answers: Sendable {
    let received = Mutex<[ThumbnailAnswer]>([])
    let done = DispatchSemaphore(value: 0)

    func waiter(cancelled: @escaping @Sendable () -> Bool = { false }) -> ThumbnailService.Waiter {
        ThumbnailService.Waiter(isCancelled: cancelled, deliver: { answer in
            self.received.withLock { $0.append(answer) }
            self.done.signal()
        })
    }

    func wait(for count: Int) -> [ThumbnailAnswer] {
        for _ in 0..<count { _ = done.wait(timeout: .now() + 30) }
        return received.withLock { $0 }
    }
}

@Suite struct ThumbnailServiceTests {
    static let photo = try! ImageSynthesis.pattern(width: 640, height: 480, seed: 5).encode(.jpeg)

    func service(workers: Int = 2, queue: Int = 16, maxSourceBytes: Int = 1 << 26, sharesDecodes: Bool = false,
                 memory: MemoryBudget = MemoryBudget(limit: 0)) -> ThumbnailService {
        ThumbnailService(store: VariantStore(memoryBytes: 1 << 24, disk: nil, prepare: ThumbnailPresenter(fields: ImageFields(cacheControl: "public, max-age=60", acceptClientHints: false)).prepared),
                         pool: WorkerPool(workers: workers, queueLimit: queue), memory: memory,
                         limits: .init(maxSourceBytes: maxSourceBytes, maxSourcePixels: 50_000_000, sharesDecodes: sharesDecodes),
                         metrics: ThumbdMetrics(routes: Route.metricLabels), clock: ManualClock(), logger: Logger(label: "test"))
    }

    func request(_ query: String, negotiated: OutputFormat? = nil) throws -> ThumbnailRequest {
        let transform = try #require(try TransformParser(presets: [:], maxDimension: 4096, defaultQuality: 80)
            .transform(QueryParameters(parsing: Substring(query))))
        return ThumbnailRequest(transform: transform, negotiated: negotiated)
    }

    @Test func aMissIsMadeOnceStoredAndThenAHit() throws {
        let thumbnails = service()
        let source = StubSource("a", bytes: Self.photo)
        let wanted = try request("w=100&fm=webp")
        #expect(thumbnails.cached(wanted, of: source, at: source.knownVersion) == nil)
        let answers = Answers()
        thumbnails.make(wanted, of: source, at: source.knownVersion, for: answers.waiter())
        guard case .variant(let made) = answers.wait(for: 1).first else {
            Issue.record("no variant")
            return
        }
        #expect(made.tier == nil && made.variant.contentType == "image/webp")
        #expect(ThumbnailPresenter.timing(tier: made.tier, steps: made.steps).steps.map(\.name) == ["read", "transform"])
        #expect(try ImageHeader.read(made.variant.bytes).width == 100)
        let hit = try #require(thumbnails.cached(wanted, of: source, at: source.knownVersion))
        #expect(hit.tier == .memory)
        #expect(thumbnails.transformsRun.count == 1 && source.loads.count == 1)
    }

    /// A miss of `source` started and held inside its transform: another holder has the whole
    /// of `budget` (64 MiB) until released.
    func missHeldInItsTransform(_ thumbnails: ThumbnailService, _ budget: MemoryBudget, _ query: String,
                                of source: StubSource) throws -> (other: BudgetHolder, answers: Answers) {
        let other = BudgetHolder(budget, bytes: 64 << 20)
        #expect(other.waitEntered())
        let answers = Answers()
        thumbnails.make(try request(query), of: source, at: source.knownVersion, for: answers.waiter())
        #expect(eventually { budget.usage.waiting == 1 })
        return (other, answers)
    }

    @Test func aTransformWaitsUntilItsEstimateFitsInTheMemoryBudget() throws {
        let budget = MemoryBudget(limit: 64 << 20)
        let thumbnails = service(memory: budget)
        let (other, answers) = try missHeldInItsTransform(thumbnails, budget, "w=100", of: StubSource("budget", bytes: Self.photo))
        #expect(answers.received.withLock { $0.isEmpty } && thumbnails.transformsRun.count == 0)
        other.release()
        guard case .variant(let made) = answers.wait(for: 1).first else {
            Issue.record("no variant")
            return
        }
        #expect(try ImageHeader.read(made.variant.bytes).width == 100)
        #expect(budget.usage.reserved == 0 && budget.usage.waits == 1)
    }

    @Test func concurrentRequestsForOneThumbnailShareOneLoadAndOneTransform() throws {
        let thumbnails = service()
        let source = StubSource("b", bytes: Self.photo, gated: true)
        let answers = Answers()
        for _ in 0..<20 { thumbnails.make(try request("w=120"), of: source, at: source.knownVersion, for: answers.waiter()) }
        source.gate.signal()
        let all = answers.wait(for: 20)
        #expect(all.count == 20)
        #expect(source.loads.count == 1 && thumbnails.transformsRun.count == 1)
        #expect(thumbnails.flights.joined.count == 19)
        let etags = Set(all.compactMap { answer -> String? in
            if case .variant(let found) = answer { return found.variant.etag } else { return nil }
        })
        #expect(etags.count == 1)
    }

    @Test(arguments: [true, false])
    func queuedMissesOfOneSourceAreMadeFromOneDecodeOnlyWhenAsked(_ sharing: Bool) throws {
        let thumbnails = service(workers: 1, sharesDecodes: sharing)
        // The one worker is held by another source while the sizes of this one queue up.
        let blocker = StubSource("held", bytes: Self.photo, gated: true)
        let held = Answers()
        thumbnails.make(try request("w=50"), of: blocker, at: blocker.knownVersion, for: held.waiter())
        let source = StubSource("grid", bytes: Self.photo)
        let queries = ["w=80", "w=160&h=160&fit=cover", "w=320", "w=100&rect=0,0,320,240"]
        let answers = queries.map { _ in Answers() }
        for (query, answer) in zip(queries, answers) {
            thumbnails.make(try request(query), of: source, at: source.knownVersion, for: answer.waiter())
        }
        blocker.gate.signal()
        var etags: [String] = []
        for (query, answer) in zip(queries, answers) {
            guard case .variant(let made) = answer.wait(for: 1).first else {
                Issue.record("no variant for \(query)")
                return
            }
            let header = try ImageHeader.read(made.variant.bytes)
            let expected = ["w=80": (80, 60), "w=160&h=160&fit=cover": (160, 160), "w=320": (320, 240), "w=100&rect=0,0,320,240": (100, 75)][query]!
            #expect(header.width == expected.0 && header.height == expected.1, "\(query)")
            etags.append(made.variant.etag)
        }
        _ = held.wait(for: 1)
        #expect(source.loads.count == (sharing ? 1 : 4) && thumbnails.transformsRun.count == 5)
        // Resized from the shared decode: other ETags than the same sizes made alone; the
        // region, which cannot share, the same. Without sharing, every ETag is the same.
        let alone = service()
        for (query, etag) in zip(queries, etags) {
            let answer = Answers()
            alone.make(try request(query), of: source, at: source.knownVersion, for: answer.waiter())
            guard case .variant(let made) = answer.wait(for: 1).first else {
                Issue.record("no variant")
                return
            }
            #expect((made.variant.etag == etag) == (!sharing || query.contains("rect")), "\(query)")
        }
    }

    /// The ETags of `answers` (one each), in order; empty when one is not a variant.
    func etags(_ answers: [Answers]) -> [String] {
        answers.compactMap { answer -> String? in
            if case .variant(let made) = answer.wait(for: 1).first { return made.variant.etag } else { return nil }
        }
    }

    @Test func missesArrivingWhileTheirSourceLoadsJoinItThoughAWorkerIsIdle() throws {
        let thumbnails = service(workers: 2, sharesDecodes: true)
        let source = StubSource("joining", bytes: Self.photo, gated: true)
        let queries = ["w=90", "w=200", "w=300&h=100&fit=cover", "w=400"]
        let answers = queries.map { _ in Answers() }
        thumbnails.make(try request(queries[0]), of: source, at: source.knownVersion, for: answers[0].waiter())
        #expect(eventually { source.loads.count == 1 })
        for (query, answer) in zip(queries, answers).dropFirst() {
            thumbnails.make(try request(query), of: source, at: source.knownVersion, for: answer.waiter())
        }
        // No job was queued for them, and the idle worker took none: the one loading the source takes them.
        #expect(eventually { thumbnails.pool.queueDepth == 0 && thumbnails.pool.running == 1 })
        #expect(source.loads.count == 1)
        source.gate.signal()
        source.gate.signal()  // a second load, were there one, would not hang the test
        let made = etags(answers)
        #expect(made.count == 4 && source.loads.count == 1 && thumbnails.transformsRun.count == 4)
        // All four resized from one decode: none has the ETag of its size made alone.
        let alone = service()
        for (query, etag) in zip(queries, made) {
            let answer = Answers()
            alone.make(try request(query), of: StubSource("joining", bytes: Self.photo), at: source.knownVersion, for: answer.waiter())
            #expect(etags([answer]) != [etag], "\(query)")
        }
    }

    @Test func aMissJoiningASourceBeingMadeTakesNoQueuePlace() throws {
        // One worker and no queue: any job beyond the running one is refused (503).
        let thumbnails = service(workers: 1, queue: 0, sharesDecodes: true)
        let source = StubSource("full", bytes: Self.photo, gated: true)
        let first = Answers(), second = Answers()
        thumbnails.make(try request("w=90"), of: source, at: source.knownVersion, for: first.waiter())
        #expect(eventually { source.loads.count == 1 })
        thumbnails.make(try request("w=180"), of: source, at: source.knownVersion, for: second.waiter())
        source.gate.signal()
        source.gate.signal()
        for answer in [first, second] {
            guard case .variant = answer.wait(for: 1).first else {
                Issue.record("not made: \(String(describing: answer.received.withLock { $0.first }))")
                return
            }
        }
        #expect(source.loads.count == 1)
    }

    @Test func missesArrivingWhileTheirSourceIsTransformedWaitAndAreMadeTogetherNext() throws {
        let budget = MemoryBudget(limit: 64 << 20)
        let thumbnails = service(workers: 2, sharesDecodes: true, memory: budget)
        let source = StubSource("next", bytes: Self.photo)
        let (other, first) = try missHeldInItsTransform(thumbnails, budget, "w=100", of: source)
        let later = ["w=150", "w=250"].map { _ in Answers() }
        for (query, answer) in zip(["w=150", "w=250"], later) {
            thumbnails.make(try request(query), of: source, at: source.knownVersion, for: answer.waiter())
        }
        #expect(eventually { thumbnails.pool.queueDepth == 0 && thumbnails.pool.running == 1 })
        #expect(source.loads.count == 1 && budget.usage.waiting == 1)
        other.release()
        #expect(etags([first] + later).count == 3)
        // The two later ones: one more load, made together after the first.
        #expect(source.loads.count == 2 && thumbnails.transformsRun.count == 3)
        #expect(eventually { thumbnails.pool.running == 0 })
    }

    @Test func aSourceWhoseVersionIsUnknownIsLoadedBeforeItsKeyExistsAndSharesIt() throws {
        let thumbnails = service()
        let source = StubSource("c", bytes: Self.photo, versionKnown: false)
        let answers = Answers()
        thumbnails.make(try request("w=80"), of: source, at: source.knownVersion, for: answers.waiter())
        _ = answers.wait(for: 1)
        // The same thumbnail asked again: the source must be loaded to know its version,
        // then the variant is found in the store instead of made again.
        let again = Answers()
        thumbnails.make(try request("w=80"), of: source, at: source.knownVersion, for: again.waiter())
        guard case .variant(let found) = again.wait(for: 1).first else {
            Issue.record("no variant")
            return
        }
        #expect(found.tier == .memory && ThumbnailPresenter.timing(tier: found.tier, steps: found.steps).fieldValue == "cache;desc=memory")
        #expect(source.loads.count == 2 && thumbnails.transformsRun.count == 1)
    }

    @Test func failuresReachEveryWaiterAndTooLargeSourcesAreNotRead() throws {
        let thumbnails = service(maxSourceBytes: 1000)
        let big = StubSource("d", bytes: Self.photo)
        let answers = Answers()
        thumbnails.make(try request("w=10"), of: big, at: big.knownVersion, for: answers.waiter())
        guard case .failed(.sourceTooLarge(let bytes, 1000)) = answers.wait(for: 1).first else {
            Issue.record("not refused")
            return
        }
        #expect(bytes == Self.photo.count && big.loads.count == 0)

        let broken = StubSource("e", bytes: [], failure: .source(LibraryChange.changedWhileRead), gated: true)
        let failed = Answers()
        for _ in 0..<3 { thumbnails.make(try request("w=10"), of: broken, at: broken.knownVersion, for: failed.waiter()) }
        broken.gate.signal()
        let all = failed.wait(for: 3)
        #expect(all.count == 3)
        for answer in all {
            guard case .failed(let failure) = answer else { Issue.record("not failed"); continue }
            #expect(failure.response.status == .serviceUnavailable && failure.response.headers["Retry-After"] == "1")
        }
    }

    @Test func workNobodyWaitsForIsSkippedAndAFullQueueIsOverload() throws {
        let thumbnails = service(workers: 1, queue: 0)
        let blocker = StubSource("f", bytes: Self.photo, gated: true)
        let first = Answers()
        thumbnails.make(try request("w=10"), of: blocker, at: blocker.knownVersion, for: first.waiter())
        while thumbnails.pool.running == 0 { Thread.sleep(forTimeInterval: 0.002) }
        let refused = Answers()
        let other = StubSource("g", bytes: Self.photo)
        thumbnails.make(try request("w=20"), of: other, at: other.knownVersion, for: refused.waiter())
        guard case .failed(.overloaded) = refused.wait(for: 1).first else {
            Issue.record("not refused")
            return
        }
        blocker.gate.signal()
        _ = first.wait(for: 1)

        let roomy = service(workers: 1, queue: 4)
        let slow = StubSource("h", bytes: Self.photo, gated: true)
        let skipped = StubSource("i", bytes: Self.photo)
        let busy = Answers(), gone = Answers()
        roomy.make(try request("w=10"), of: slow, at: slow.knownVersion, for: busy.waiter())
        while roomy.pool.running == 0 { Thread.sleep(forTimeInterval: 0.002) }
        roomy.make(try request("w=10"), of: skipped, at: skipped.knownVersion, for: gone.waiter(cancelled: { true }))
        slow.gate.signal()
        _ = busy.wait(for: 1)
        while roomy.pool.running + roomy.pool.queueDepth > 0 { Thread.sleep(forTimeInterval: 0.002) }
        #expect(skipped.loads.count == 0 && roomy.transformsRun.count == 1)
        #expect(gone.received.withLock { $0.isEmpty })
    }

    /// The one answer a single waiter gets for `query` of the test photo.
    func answer(_ thumbnails: ThumbnailService, _ query: String, source: StubSource) throws -> ThumbnailAnswer? {
        let answers = Answers()
        thumbnails.make(try request(query), of: source, at: source.knownVersion, for: answers.waiter())
        return answers.wait(for: 1).first
    }

    @Test func aTransformOverTheWholeBudgetIsRefusedBeforeAnyDecode() throws {
        let budget = MemoryBudget(limit: 4 << 20)
        let thumbnails = service(memory: budget)
        guard case .failed(.workingMemory(let needed, let limit)) = try answer(thumbnails, "w=600&fm=avif",
                                                                               source: StubSource("mem", bytes: Self.photo)) else {
            Issue.record("not refused for its memory")
            return
        }
        #expect(needed > limit && limit == 4 << 20)
        #expect(thumbnails.transformsRun.count == 0 && budget.usage.refusals == 1 && budget.usage.reservedTotal == 0)
        let problem = ThumbnailFailure.workingMemory(needed: needed, limit: limit).problem
        #expect(problem.status.code == 422 && problem.detail.contains("4 MiB") && problem.detail.contains("limits.transform_memory_bytes"))
    }

    /// The output limits hold on the final canvas: padding times dpr, and rotation, count too.
    @Test(arguments: ["w=1024&h=1024&dpr=4&fit=pad&pad=1000&fm=jxl", "w=4096&h=4096&fit=pad&pad=1000&fm=jxl",
                      "w=4000&enlarge=1&pad=100", "w=100&h=4000&fit=fill&rot=90&pad=0,200,0,0&enlarge=1"])
    func anOutputOverTheLimitsAfterPaddingDprAndRotationIsRefusedBeforeDecode(_ query: String) throws {
        let thumbnails = ThumbnailService(store: VariantStore(memoryBytes: 1 << 24, disk: nil, prepare: ThumbnailPresenter(fields: ImageFields(cacheControl: "public", acceptClientHints: false)).prepared),
                                          pool: WorkerPool(workers: 1, queueLimit: 4), memory: MemoryBudget(limit: 0),
                                          limits: .init(maxSourceBytes: 1 << 26, maxSourcePixels: 50_000_000, maxDimension: 4096),
                                          metrics: ThumbdMetrics(routes: Route.metricLabels), clock: ManualClock(), logger: Logger(label: "test"))
        guard case .failed(.imaging(.outputTooLarge(let width, let height, _))) = try answer(thumbnails, query,
                                                                                            source: StubSource("pad", bytes: Self.photo)) else {
            Issue.record("\(query) not refused for its size")
            return
        }
        #expect(max(width, height) > 4096)
        #expect(thumbnails.transformsRun.count == 0 && thumbnails.memory.usage.reservedTotal == 0)
    }

    @Test func aMissWaitingForMemoryWhoseClientsLeftGivesUpAndRunsNothing() throws {
        let budget = MemoryBudget(limit: 64 << 20, abandonCheckInterval: 0.01)
        let thumbnails = service(memory: budget)
        let other = BudgetHolder(budget, bytes: 64 << 20)
        #expect(other.waitEntered())
        let gone = Atomic<Bool>(false)
        let answers = Answers()
        let source = StubSource("left", bytes: Self.photo)
        thumbnails.make(try request("w=100"), of: source, at: source.knownVersion,
                        for: answers.waiter(cancelled: { gone.load(ordering: .sequentiallyConsistent) }))
        #expect(eventually { budget.usage.waiting == 1 })
        gone.store(true, ordering: .sequentiallyConsistent)
        #expect(eventually { budget.usage.abandoned == 1 && budget.usage.waiting == 0 })
        #expect(eventually { thumbnails.pool.running == 0 })
        other.release()
        #expect(thumbnails.transformsRun.count == 0 && answers.received.withLock { $0.isEmpty })
        #expect(thumbnails.flights.pendingKeys == 0)
    }

    @Test func theMemoryTierGivesItsRoomToTransformsThatNeedItAndTakesItBack() throws {
        let room = 24 << 20
        let store = VariantStore(memoryBytes: 8 << 20, disk: nil,
                                 prepare: ThumbnailPresenter(fields: ImageFields(cacheControl: "public", acceptClientHints: false)).prepared)
        let budget = MemoryBudget(limit: room, reservedChanged: { store.yieldMemory(toTransformsHolding: $0, of: room) })
        let thumbnails = ThumbnailService(store: store, pool: WorkerPool(workers: 1, queueLimit: 4), memory: budget,
                                          limits: .init(maxSourceBytes: 1 << 26, maxSourcePixels: 50_000_000),
                                          metrics: ThumbdMetrics(routes: Route.metricLabels), clock: ManualClock(), logger: Logger(label: "test"))
        let source = StubSource("tier", bytes: Self.photo)
        for width in [100, 200, 300] { _ = try answer(thumbnails, "w=\(width)", source: source) }
        #expect(store.memory.statistics.entries == 3)
        // Transforms holding 20 MiB of the 24 leave the tier 4 MiB: it still holds the three.
        let large = BudgetHolder(budget, bytes: 20 << 20)
        #expect(large.waitEntered())
        #expect(store.memory.currentCapacity == 4 << 20 && store.memory.statistics.entries == 3)
        large.release()
        // Holding all of it empties the tier; once done, the tier may fill again up to its size.
        let all = BudgetHolder(budget, bytes: room)
        #expect(all.waitEntered())
        #expect(store.memory.currentCapacity == 0 && store.memory.statistics.entries == 0)
        all.release()
        #expect(store.memory.currentCapacity == 8 << 20)
        _ = try answer(thumbnails, "w=100", source: source)
        #expect(store.memory.statistics.entries == 1)
    }

    @Test func identitiesAreTheSameForEquivalentRequestsAndDifferForNegotiatedFormats() throws {
        let source = SourceName.library("a/b.jpg")
        let version = SourceVersion(tag: VersionTag(.file(modifiedNanos: 1, size: 2)), format: .jpeg, lastModified: 1, byteCount: 2)
        let a = ThumbnailIdentity(source: source, version: version, request: try request("w=200&dpr=2&fit=cover&h=100&crop=center"))
        let b = ThumbnailIdentity(source: source, version: version, request: try request("h=200&w=400&fit=cover"))
        #expect(a.key == b.key)
        #expect(a.key.text == "img|a/b.jpg|o1-2|w=400,h=200,fit=cover,crop=center,enlarge=0,fm=jpeg,q=80|jpeg")
        let webp = ThumbnailIdentity(source: source, version: version, request: try request("w=400&fm=auto", negotiated: .webp))
        let legacy = ThumbnailIdentity(source: source, version: version, request: try request("w=400&fm=auto"))
        #expect(webp.formatTag == .negotiated(.webp) && legacy.formatTag == .negotiated(nil))
        #expect(webp.key.text.hasSuffix("|webp") && legacy.key.text.hasSuffix("|legacy"))
        #expect(legacy.options.format == nil)
        let newer = ThumbnailIdentity(source: source, version: SourceVersion(tag: VersionTag(.file(modifiedNanos: 1, size: 3)), format: .jpeg, lastModified: 1),
                                      request: try request("w=400&h=200&fit=cover"))
        #expect(newer.key != a.key)
        // Derived from the text alone: the same on any replica, after any restart.
        #expect(ThumbnailIdentity.etag(sourceVersion: "o1-2", options: a.options)
            == "t" + StableHash.hex128("o1-2|" + a.options.canonicalText))
    }

    @Test func theIdentityMemoKeepsOneVersionAndOneIdentityPerNegotiatedFormat() throws {
        let memo = IdentityMemo()
        var wanted = try request("w=50&fm=auto", negotiated: .avif)
        wanted.memo = memo
        let source = SourceName.library("x.jpg")
        let v1 = SourceVersion(tag: VersionTag(.entityTag("v1")), format: .jpeg, lastModified: 0)
        let avif = wanted.identity(of: source, at: v1)
        wanted.negotiated = nil
        let legacy = wanted.identity(of: source, at: v1)
        #expect(avif.key != legacy.key)
        wanted.negotiated = .avif
        #expect(wanted.identity(of: source, at: v1).key == avif.key)
        let v2 = wanted.identity(of: source, at: SourceVersion(tag: VersionTag(.entityTag("v2")), format: .jpeg, lastModified: 0))
        #expect(v2.key.text.contains("|ev2|"))
    }
}

@Suite struct SingleFlightTests {
    @Test func oneRunForManyWaitersAndSkippedOnlyWhenAllLeft() {
        let flights = SingleFlight<Int>()
        let got = Mutex<[Int]>([])
        let cancelled = Atomic<Bool>(false)
        func waiter(_ leaves: Bool) -> SingleFlight<Int>.Waiter {
            .init(isCancelled: { leaves && cancelled.load(ordering: .relaxed) }, deliver: { v in got.withLock { $0.append(v) } })
        }
        #expect(flights.join("k", waiter(true)))
        #expect(!flights.join("k", waiter(false)))
        #expect(flights.joined.count == 1)
        cancelled.store(true, ordering: .relaxed)
        #expect(!flights.abandonIfUnwanted("k"), "one waiter is still there")
        flights.finish("k", with: 7)
        #expect(got.withLock { $0 } == [7, 7])
        #expect(flights.pendingKeys == 0)
        #expect(flights.join("k", waiter(true)))
        #expect(flights.abandonIfUnwanted("k"))
        #expect(flights.pendingKeys == 0)
    }

    @Test func blockingRunsShareOneExecution() {
        let flights = SingleFlight<Int>()
        let runs = Counter()
        let gate = DispatchSemaphore(value: 0)
        // Locked, not Mutex: ThreadSanitizer sees a pthread mutex (make test-tsan).
        let results = Locked<[Int]>([])
        let group = DispatchGroup()
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                let value = flights.run("key") {
                    runs.increment()
                    gate.wait()
                    return 42
                }
                results.withLock { $0.append(value) }
            }
        }
        while flights.joined.count < 7 { Thread.sleep(forTimeInterval: 0.002) }
        gate.signal()
        group.wait()
        #expect(runs.count == 1)
        #expect(results.withLock { $0 } == Array(repeating: 42, count: 8))
    }
}

@Suite struct ProblemMappingTests {
    @Test func domainErrorsKnowTheirStatus() {
        let cases: [(any Error, Int)] = [
            (QueryParameters.Problem.malformed("%"), 400),
            (ParameterError(parameter: "w", detail: "no"), 400),
            (URLSigner.Refusal.missing, 403), (URLSigner.Refusal.notLast, 403), (URLSigner.Refusal.wrong, 403),
            (LibraryPath.Problem.malformedEncoding, 400), (LibraryPath.Problem.refused("dot"), 404),
            (ImageLibrary.LookupError.notFound, 404), (ImageLibrary.LookupError.notAnImage, 415),
            (ImageLibrary.LookupError.changing, 503), (LibraryChange.changedWhileRead, 503),
            (ImagingError.unsupportedFormat, 415), (ImagingError.tooManyPixels(width: 9, height: 9, limit: 1), 422),
            (ImagingError.undecodable("cut"), 422), (ImagingError.encodingFailed("webp"), 500),
            (OriginFetcher.Failure.timeout, 504), (OriginFetcher.Failure.tooLarge, 413),
            (OriginFetcher.Failure.status(404), 404), (OriginFetcher.Failure.status(403), 502),
            (OriginFetcher.Failure.tooSlow(bytes: 5, seconds: 5), 504), (OriginFetcher.Failure.notAllowed("x"), 403),
            (S3Error.refused(status: 403, code: "AccessDenied"), 502), (S3Error.notFound, 404), (S3Error.unavailable("x"), 503),
            (RemoteOriginals.Failure.notAnImage, 502), (RemoteOriginals.Failure.fetch(.blockedAddress("x")), 403),
            (ThumbnailFailure.overloaded, 503), (ThumbnailFailure.sourceTooLarge(bytes: 2, limit: 1), 413),
            (ThumbnailFailure.imaging(.encodingFailed("x")), 500), (ThumbnailFailure.source(OriginFetcher.Failure.timeout), 504),
            (ProxyRoute.Refusal.remoteOff, 403), (Overloaded(), 503), (NoRoute(path: "/x"), 404),
            (MethodNotAllowed(method: "POST"), 405), (CocoaError(.fileNoSuchFile), 500),
        ]
        for (error, status) in cases {
            let response = Problems.response(for: error)
            #expect(response.status.code == status, "\(error)")
            #expect(response.headers["Content-Type"] == "application/problem+json")
            #expect(response.headers["Cache-Control"] == "no-store")
        }
    }

    @Test func problemsCarryTheirFields() {
        #expect(Problems.response(for: Overloaded()).headers["Retry-After"] == "1")
        #expect(Problems.response(for: ThumbnailFailure.overloaded).headers["Retry-After"] == "1")
        #expect(Problems.response(for: MethodNotAllowed(method: "PUT")).headers["Allow"] == "GET, HEAD")
        let bad = Problems.response(for: ParameterError(parameter: "fit", detail: "fit must be one of ..."))
        guard case .bytes(let body) = bad.body.segments.first else { return }
        #expect(String(decoding: body, as: UTF8.self).contains(#""parameter":"fit""#))
    }
}

@Suite struct CacheKeyTextTests {
    @Test func canonicalTextIsStable() {
        let options = TransformOptions(width: 300, height: 200, fit: .cover, crop: .entropy, format: .webp, quality: 70)
        #expect(options.canonicalText == "w=300,h=200,fit=cover,crop=entropy,enlarge=0,fm=webp,q=70")
        #expect(TransformOptions().resolved(for: .gif).canonicalText == "w=-,h=-,fit=contain,crop=center,enlarge=0,fm=png,q=-")
    }
}
