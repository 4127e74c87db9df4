import CSystem
import DequeModule
import Dispatch
import Foundation
import Locking
import Synchronization

/// A fixed set of threads running CPU-bound jobs (transforms) behind a bounded queue.
/// Event loops never run these jobs, so requests that need no transform never wait.
/// (A second pool runs the blocking transfers of originals streamed from a bucket, so a slow
/// client never holds a worker.)
public final class WorkerPool: Sendable {
    private struct State {
        var jobs = Deque<@Sendable () -> Void>()
        var running = 0
        var stopped = false
        /// Jobs started so far: an idle hook scheduled earlier runs only if none started since.
        var started = 0
        var waiting: Int { jobs.count }
    }

    public let workers: Int
    public let queueLimit: Int
    private let name: String
    private let state = Locked(State())
    private let available = DispatchSemaphore(value: 0)
    /// The threads are made with the first job: a pool that is built and never used costs none.
    private let threadsMade = Atomic<Bool>(false)
    private let whenIdle: @Sendable () -> Void
    private let idleDelay: Double
    private let schedule: Scheduler

    /// Runs a closure after a delay in seconds (tests pass one that keeps the closures).
    public typealias Scheduler = @Sendable (Double, @escaping @Sendable () -> Void) -> Void

    /// `whenIdle` runs once no job runs or waits: by default it hands freed memory back to
    /// the system (decoding a large photo can take 100+ MB). With an `idleDelay`, it runs that
    /// many seconds later (through `schedule`), and only if no job started meanwhile: a gap
    /// between two requests of a burst does not hand back what the next one would fault in again.
    public init(workers: Int, queueLimit: Int, name: String = "worker",
                whenIdle: @escaping @Sendable () -> Void = { csys_release_free_memory() }, idleDelay: Double = 0,
                schedule: @escaping Scheduler = { delay, work in DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: work) }) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
        self.name = name
        self.whenIdle = whenIdle
        self.idleDelay = max(0, idleDelay)
        self.schedule = schedule
    }

    /// Queues `job`; false when the queue is full (the caller answers 503).
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { s -> Bool in
            // In flight = running + waiting; room for every worker plus the queue.
            guard !s.stopped, s.running + s.waiting < workers + queueLimit else { return false }
            s.jobs.append(job)
            return true
        }
        if accepted {
            // A load first: after the first job, no submit writes the flag's cache line again.
            if !threadsMade.load(ordering: .acquiring), !threadsMade.exchange(true, ordering: .acquiringAndReleasing) {
                makeThreads()
            }
            available.signal()
        }
        return accepted
    }

    private func makeThreads() {
        for index in 0..<workers {
            let thread = Thread { [self] in work() }
            thread.name = "thumbd-\(name)-\(index)"
            // libvips' own stack needs room for large images.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Jobs waiting for a worker.
    public var queueDepth: Int { state.withLock { $0.waiting } }
    /// Jobs being run.
    public var running: Int { state.withLock { $0.running } }

    /// Lets the threads finish their current job and exit.
    public func stop() {
        state.withLock { $0.stopped = true }
        for _ in 0..<workers { available.signal() }
    }

    private func work() {
        while true {
            available.wait()
            let job = state.withLock { s -> (@Sendable () -> Void)? in
                if s.stopped { return nil }
                guard let job = s.jobs.popFirst() else { return nil }
                s.running += 1
                s.started += 1
                return job
            }
            guard let job else {
                if state.withLock({ $0.stopped }) { return }
                continue
            }
            job()
            let idleAt = state.withLock { s -> Int? in
                s.running -= 1
                return s.running == 0 && s.waiting == 0 ? s.started : nil
            }
            if let idleAt { idle(since: idleAt) }
        }
    }

    private func idle(since started: Int) {
        guard idleDelay > 0 else { return whenIdle() }
        schedule(idleDelay) { [self] in
            let stillIdle = state.withLock { s in !s.stopped && s.started == started && s.running == 0 && s.waiting == 0 }
            if stillIdle { whenIdle() }
        }
    }
}
