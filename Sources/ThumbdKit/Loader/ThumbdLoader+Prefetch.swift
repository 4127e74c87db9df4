import Foundation

/// Prefetching: load what the grid will show next, at low priority and a few at a time, so
/// visible loads go first. A visible load of a URL being prefetched joins that transfer and
/// raises its priority (`URLSessionTask.priority`).
extension ThumbdLoader {
    /// Queues `urls` (those not already fresh in memory, queued or running).
    public func prefetch(_ urls: [URL]) {
        prefetches.withLock { queue in
            for url in urls where queue.running[url] == nil && !queue.waiting.contains(url) {
                if freshMemoryHit(memory.entry(for: cacheKey(for: url)), url: url) != nil { continue }
                queue.waiting.append(url)
            }
        }
        startPrefetches()
    }

    /// Drops `urls` from the queue and cancels their prefetches under way (a visible load that
    /// joined one keeps its transfer going).
    public func cancelPrefetching(_ urls: [URL]) {
        let dropped = Set(urls)
        let tasks = prefetches.withLock { queue -> [Task<Void, Never>] in
            queue.waiting.removeAll { dropped.contains($0) }
            return dropped.compactMap { queue.running.removeValue(forKey: $0)?.task }
        }
        for task in tasks { task.cancel() }
        startPrefetches()
    }

    public func cancelAllPrefetching() {
        let tasks = prefetches.withLock { queue -> [Task<Void, Never>] in
            queue.waiting.removeAll()
            defer { queue.running.removeAll() }
            return queue.running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// URLs queued and prefetches running.
    public var prefetchCounts: (waiting: Int, running: Int) {
        prefetches.withLock { ($0.waiting.count, $0.running.count) }
    }

    private func startPrefetches() {
        let limit = max(1, configuration.maxConcurrentPrefetches)
        prefetches.withLock { queue in
            while queue.running.count < limit, !queue.waiting.isEmpty {
                let url = queue.waiting.removeFirst()
                queue.lastID += 1
                let id = queue.lastID
                // Registered before the lock is released, so its end always finds it.
                let task = Task.detached(priority: .utility) { [self] in
                    _ = try? await load(url, priority: .low)
                    prefetchEnded(url, id: id)
                }
                queue.running[url] = PrefetchQueue.Running(id: id, task: task)
            }
        }
    }

    private func prefetchEnded(_ url: URL, id: UInt64) {
        prefetches.withLock { queue in
            if queue.running[url]?.id == id { queue.running.removeValue(forKey: url) }
        }
        startPrefetches()
    }
}
