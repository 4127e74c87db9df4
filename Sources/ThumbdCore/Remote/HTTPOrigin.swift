import Imaging
import Video
import WireCoding

/// The HTTP origins `/proxy` and `/v1/info` fetch from, as an `OriginStore`: an id is a URL,
/// revalidated with a conditional GET (`If-None-Match`, `If-Modified-Since`), each host with a
/// health of its own. Every fetch is counted in the metrics by its outcome.
package struct HTTPOrigin: OriginStore {
    package enum Failure: Error, Sendable {
        case fetch(OriginFetcher.Failure)
        case notAnImage
        /// The origin's host failed or is slow: nothing is asked of it for a moment (503).
        case originUnavailable(String)
    }

    package let fetcher: OriginFetcher
    package let metrics: any OriginMetrics

    package init(fetcher: OriginFetcher, metrics: any OriginMetrics) {
        self.fetcher = fetcher
        self.metrics = metrics
    }

    package func sourceName(_ url: String) -> SourceName { .remote(url) }

    package func healthKey(_ url: String) -> String { (try? OriginFetcher.host(of: url)) ?? url }

    package func describe(healthKey host: String) -> String { "the origin \(host)" }

    package func revalidate(_ url: String, version: SourceVersion, answered: () -> Void) throws(Failure) -> Revalidation {
        let lastModified = version.lastModified > 0 ? HTTPDate.format(version.lastModified) : nil
        let response = try get(url, ifNoneMatch: version.storeETag, ifModifiedSince: lastModified, answered: answered)
        if response.status == 304 {
            metrics.originFetch(.notModified, seconds: response.seconds)
            return .unchanged(version)
        }
        return .replaced(try original(response))
    }

    package func fetch(_ url: String, answered: () -> Void) throws(Failure) -> OriginalStore.Original {
        try original(try get(url, ifNoneMatch: nil, ifModifiedSince: nil, answered: answered))
    }

    package func isOutage(_ failure: Failure) -> Bool {
        switch failure {
        case .fetch(let error): Self.staleAllowed(after: error)
        case .originUnavailable: true
        case .notAnImage: false
        }
    }

    package func isGone(_ failure: Failure) -> Bool { false }

    /// The URL's first byte asked within the probe's timeout: any answer but a 5xx is one.
    package func probe(_ url: String) -> Bool {
        let limit = StoreHealth.Defaults.probeTimeout
        let quick = OriginFetcher(allow: fetcher.allow, allowPrivate: fetcher.allowPrivate, maxRedirects: 0,
                                  connectTimeout: min(fetcher.connectTimeout, limit), totalTimeout: limit, minRate: 0, maxBytes: 1 << 16,
                                  clock: fetcher.clock)
        do {
            _ = try quick.fetch(url, range: "bytes=0-0", bodyLimit: 1 << 16)
            return true
        } catch {
            switch error {
            case .status(let code): return code < 500
            // It answered: a redirect, or a whole body where the first byte was asked.
            case .tooManyRedirects, .tooLarge: return true
            default: return false
            }
        }
    }

    package func unavailable(_ reason: String) -> Failure { .originUnavailable(reason) }

    /// `range` ("bytes=A-B") of `url`, a 206 with its fields: a part of a video read in parts.
    package func part(_ url: String, range: String, bytes: Int, answered: () -> Void = {}) throws(Failure) -> OriginFetcher.Response {
        let answer = try get(url, ifNoneMatch: nil, ifModifiedSince: nil, range: range, bodyLimit: bytes, answered: answered)
        guard answer.status == 206 else {
            metrics.originFetch(.status, seconds: answer.seconds)
            throw .fetch(.status(answer.status))
        }
        metrics.originFetch(.ok, seconds: answer.seconds)
        return answer.response
    }

    private func get(_ url: String, ifNoneMatch: String?, ifModifiedSince: String?, range: String? = nil, bodyLimit: Int? = nil,
                     answered: () -> Void) throws(Failure) -> (status: Int, response: OriginFetcher.Response, seconds: Double) {
        let started = fetcher.clock.now()
        do {
            let response = try fetcher.fetch(url, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, range: range,
                                             bodyLimit: bodyLimit, answered: answered)
            return (response.status, response, fetcher.clock.now() - started)
        } catch {
            metrics.originFetch(OriginFetchResult(error), seconds: fetcher.clock.now() - started)
            throw .fetch(error)
        }
    }

    /// A 200's body as an original: its format sniffed, its version worked out once.
    private func original(_ answer: (status: Int, response: OriginFetcher.Response, seconds: Double)) throws(Failure)
        -> OriginalStore.Original {
        let response = answer.response
        guard let format = ImageFormat.sniff(response.body) else {
            metrics.originFetch(.notAnImage, seconds: answer.seconds)
            throw .notAnImage
        }
        metrics.originFetch(.ok, seconds: answer.seconds)
        let lastModified = response.lastModified.flatMap { HTTPDate.parse($0) } ?? 0
        let version = SourceVersion(tag: Self.versionTag(etag: response.etag, lastModified: lastModified, body: response.body),
                                    format: format, lastModified: lastModified, byteCount: response.body.count)
        return OriginalStore.Original(bytes: response.body, version: version)
    }

    /// The origin's version of an original, worked out once when it is fetched: its ETag, else
    /// its Last-Modified, else a checksum of the bytes. Variant keys and ETags are made from it.
    package static func versionTag(etag: String?, lastModified: Int, body: [UInt8]) -> VersionTag {
        if let etag, !etag.isEmpty { return VersionTag(.entityTag(etag)) }
        if lastModified > 0 { return VersionTag(.modified(seconds: lastModified)) }
        return VersionTag(.checksum(crc: CRC32C.checksum(body), length: body.count))
    }

    /// A stale copy stands in when the origin is unreachable or failing, not when it
    /// answers that the image is gone or the request itself is refused.
    package static func staleAllowed(after error: OriginFetcher.Failure) -> Bool {
        switch error {
        case .timeout, .tooSlow, .connect: true
        case .status(let code): code >= 500
        default: false
        }
    }
}

/// Remote originals: fetched once for all the sizes asked of them, kept in the originals
/// store (keyed by URL) with their version, used as they are within `origins.ttl`,
/// revalidated with a conditional request after it (a 304 keeps them), and served stale when
/// the origin fails; each origin host has its `StoreHealth`.
package typealias RemoteOriginals = FetchedOriginals<HTTPOrigin>

extension FetchedOriginals where Store == HTTPOrigin {
    /// A remote video too large to fetch whole, read by ranged GETs (`RangedReads`) through the
    /// host's health: the first block tells its format, length and version (its ETag, else its
    /// Last-Modified), and every later block must carry the same, so a rewrite midway fails the
    /// read. Nil when it is no video, or the origin serves no ranges or no validator. Blocking.
    package func videoReader(_ url: String) -> (reader: VideoReader, version: SourceVersion)? {
        let block = RangedReads.blockSize
        guard case .success(let head) = ask(url, { (answered) throws(HTTPOrigin.Failure) in
            try store.part(url, range: "bytes=0-\(block - 1)", bytes: block, answered: answered)
        }),
              let length = head.range?.completeLength, let format = ImageFormat.sniff(head.body), format.isVideo else { return nil }
        let lastModified = head.lastModified.flatMap { HTTPDate.parse($0) } ?? 0
        guard head.etag?.isEmpty == false || lastModified > 0 else { return nil }
        let version = SourceVersion(tag: HTTPOrigin.versionTag(etag: head.etag, lastModified: lastModified, body: []), format: format,
                                    lastModified: lastModified, byteCount: length)
        let reader = RangedReads.reader(length: length, first: head.body) { [self] first, last in
            guard case .success(let part) = ask(url, { (answered) throws(HTTPOrigin.Failure) in
                try store.part(url, range: "bytes=\(first)-\(last)", bytes: last - first + 1, answered: answered)
            }), part.etag == head.etag, part.lastModified == head.lastModified,
                part.range?.first == first, part.range?.last == last else { return nil }
            return part.body
        }
        return (reader, version)
    }
}
