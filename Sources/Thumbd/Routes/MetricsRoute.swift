import HTTP
import HTTPServer
import ThumbdCore

/// `GET /metrics`: the Prometheus text exposition. Request metrics are recorded as exchanges
/// finish; the state worth reporting (cache tiers, queue, connections) is read here, at scrape.
struct MetricsRoute: Sendable {
    let metrics: ThumbdMetrics
    let thumbnails: ThumbnailService
    let originals: RemoteOriginals?
    /// Nil without a shared tier.
    let shared: SharedTier?
    let gauges: ServerGauges
    let memoryPlan: MemoryPlan
    /// Nil when SVG and PDF have no renderer.
    let vectors: VectorSources?
    /// Nil without a CDN in front.
    let cdn: CDNPurge?

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        collect()
        var headers = HTTPHeaders()
        headers.add(.contentType, "text/plain; version=0.0.4; charset=utf-8")
        headers.add(.cacheControl, "no-store")
        responder.respond(HTTPResponse(headers: headers, body: .bytes(metrics.render())))
    }

    private func collect() {
        let store = thumbnails.store
        let memory = store.memory.statistics
        metrics.total("thumbd_cache_requests_total", [("tier", "memory"), ("result", "hit")], memory.hits)
        metrics.total("thumbd_cache_requests_total", [("tier", "memory"), ("result", "miss")], memory.misses)
        metrics.total("thumbd_cache_evictions_total", [("tier", "memory")], memory.evictions)
        metrics.gauge("thumbd_cache_bytes", [("tier", "memory")], memory.bytes)
        metrics.gauge("thumbd_cache_entries", [("tier", "memory")], memory.entries)
        if let disk = store.disk?.statistics {
            metrics.total("thumbd_cache_requests_total", [("tier", "disk"), ("result", "hit")], disk.hits)
            metrics.total("thumbd_cache_requests_total", [("tier", "disk"), ("result", "miss")], disk.misses)
            metrics.total("thumbd_cache_evictions_total", [("tier", "disk")], disk.evictions)
            metrics.total("thumbd_cache_writes_total", [("tier", "disk")], disk.writes)
            metrics.total("thumbd_cache_corrupt_entries_total", [("tier", "disk")], disk.corrupt)
            metrics.gauge("thumbd_cache_bytes", [("tier", "disk")], disk.bytes)
            metrics.gauge("thumbd_cache_entries", [("tier", "disk")], disk.entries)
        }
        if let shared = shared?.counters {
            metrics.total("thumbd_cache_requests_total", [("tier", "shared"), ("result", "hit")], shared.hits.count)
            metrics.total("thumbd_cache_requests_total", [("tier", "shared"), ("result", "miss")], shared.misses.count)
            metrics.total("thumbd_cache_writes_total", [("tier", "shared")], shared.writes.count)
            metrics.total("thumbd_cache_corrupt_entries_total", [("tier", "shared")], shared.corrupt.count)
            metrics.total("thumbd_shared_cache_dropped_writes_total", [], shared.drops.count)
            metrics.total("thumbd_shared_cache_errors_total", [], shared.errors.count)
            metrics.total("thumbd_shared_cache_skipped_total", [], shared.skips.count)
            metrics.total("thumbd_shared_cache_denied_total", [], shared.denials.count)
        }
        if let renderer = vectors?.renderer {
            let done = renderer.statistics
            metrics.gauge("thumbd_vector_renderers_warm", [], renderer.warm)
            metrics.total("thumbd_vector_renderers_started_total", [], done.started)
            for (result, count) in [("answered", done.answered), ("timed_out", done.timedOut), ("stopped", done.stopped), ("died", done.died)] {
                metrics.total("thumbd_vector_renders_total", [("result", result)], count)
            }
        }
        metrics.gauge("thumbd_transform_queue_depth", [], thumbnails.pool.queueDepth)
        metrics.gauge("thumbd_transforms_running", [], thumbnails.pool.running)
        metrics.total("thumbd_coalesced_requests_total", [], thumbnails.flights.joined.count)
        metrics.total("thumbd_transforms_cancelled_total", [], thumbnails.transformsCancelled.count)
        metrics.total("thumbd_held_answers_unconfirmed_total", [], thumbnails.staleAnswers.count)
        if let faces = thumbnails.faces { metrics.total("thumbd_face_detections_total", [], faces.detections.count) }
        if let cdn {
            metrics.total("thumbd_cdn_purges_total", [("result", "purged")], cdn.purged.count)
            metrics.total("thumbd_cdn_purges_total", [("result", "failed")], cdn.failed.count)
        }
        let memoryBudget = thumbnails.memory.usage
        metrics.gauge("thumbd_transform_memory_reserved_bytes", [], memoryBudget.reserved)
        metrics.gauge("thumbd_transforms_waiting_for_memory", [], memoryBudget.waiting)
        metrics.total("thumbd_transform_memory_waits_total", [], memoryBudget.waits)
        metrics.total("thumbd_transform_memory_reserved_bytes_total", [], memoryBudget.reservedTotal)
        metrics.total("thumbd_transform_memory_refusals_total", [], memoryBudget.refusals)
        metrics.total("thumbd_transform_memory_abandoned_total", [], memoryBudget.abandoned)
        metrics.gauge("thumbd_memory_limit_bytes", [], memoryPlan.limit)
        metrics.gauge("thumbd_transform_memory_budget_bytes", [], memoryPlan.transformBudget)
        if let resident = ProcessMemory.residentBytes() { metrics.gauge("thumbd_process_resident_memory_bytes", [], resident) }
        if let originals {
            metrics.total("thumbd_origin_stale_served_total", [], originals.staleServed.count)
            metrics.total("thumbd_origin_shared_fetches_total", [], originals.sharedFetches)
        }
        metrics.gauge("thumbd_http_open_connections", [], gauges.openConnections)
        metrics.gauge("thumbd_http_requests_in_flight", [], gauges.inFlightRequests)
    }
}
