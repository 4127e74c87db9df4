import HTTP
import Imaging

/// One bucket as an `OriginStore`: an id is an object's key, revalidated with a HEAD (the
/// ETag it answers, when it is the one kept, confirms the version); the whole store shares
/// one health. A 5xx is the store down; other statuses are answers.
package struct S3Bucket: OriginStore {
    package let client: S3Client
    /// `limits.max_source_bytes`: larger objects are refused while they stream.
    package let maxBytes: Int

    package init(client: S3Client, maxBytes: Int) {
        self.client = client
        self.maxBytes = maxBytes
    }

    package func sourceName(_ key: String) -> SourceName { .s3(bucket: client.location.bucket, key: key) }

    package func healthKey(_ key: String) -> String { "" }

    package func describe(healthKey: String) -> String { "the S3 store \(client.endpoint.description)" }

    package func revalidate(_ key: String, version: SourceVersion, answered: () -> Void) throws(S3Error) -> Revalidation {
        let response = try object(key, head: true, answered: answered)
        guard response.status == 200 else { throw response.failure }
        guard let told = response.version(format: nil) else { throw .unavailable("the store sent no ETag") }
        return told.tag == version.tag ? .unchanged(told) : .changed
    }

    package func fetch(_ key: String, answered: () -> Void) throws(S3Error) -> OriginalStore.Original {
        let response = try object(key, answered: answered)
        guard response.status == 200 else { throw response.failure }
        guard let format = ImageFormat.sniff(response.body) else { throw .notAnImage }
        guard let version = response.version(format: format) else { throw .unavailable("the store sent no ETag") }
        return OriginalStore.Original(bytes: response.body, version: version)
    }

    package func isOutage(_ failure: S3Error) -> Bool { failure.isUnavailable }

    package func probe(_ key: String) -> Bool { client.probe() }

    package func isGone(_ failure: S3Error) -> Bool { failure == .notFound }

    package func unavailable(_ reason: String) -> S3Error { .unavailable("the store is not answering: \(reason)") }

    /// One request for `key` (HEAD or GET, with `fields`); a 5xx is a failure (the store is
    /// down), other statuses are answers. `bodyLimit`: bytes the body may have instead of
    /// `maxBytes` (a ranged read's block).
    package func object(_ key: String, head: Bool = false, fields: [(HTTPFieldName, String)] = [], bodyLimit: Int? = nil,
                        answered: () -> Void = {}) throws(S3Error) -> S3Response {
        let response = try client.object(key, head: head, fields: fields, maxBytes: bodyLimit ?? maxBytes, answered: answered)
        guard response.status < 500 else { throw response.failure }
        return response
    }
}

/// The bucket's objects as thumbd keeps them: each key's version, trusted for
/// `library.s3.ttl`; the originals, fetched once for every size asked of them meanwhile; and,
/// while the store is down or slow, what was last known (`FetchedOriginals`).
package typealias S3Objects = FetchedOriginals<S3Bucket>

extension FetchedOriginals where Store == S3Bucket {
    /// A version's tag: the ETag as sent (`SourceVersion.storeETag` reads it back).
    package static func versionTag(etag: String) -> VersionTag { VersionTag(.entityTag(etag)) }

    package var client: S3Client { store.client }

    package var maxBytes: Int { store.maxBytes }

    package func sourceName(_ key: String) -> SourceName { store.sourceName(key) }

    /// One request for `key` through the store's health (`ask`); a 5xx is a failure (the
    /// store is down), other statuses are answers.
    package func object(_ key: String, head: Bool = false, fields: [(HTTPFieldName, String)] = [], bodyLimit: Int? = nil) -> Result<S3Response, S3Error> {
        ask(key) { (answered) throws(S3Error) in try store.object(key, head: head, fields: fields, bodyLimit: bodyLimit, answered: answered) }
    }

    /// The object `key` passed on as it arrives (`S3Client.stream`, within `limits.max_source_bytes`),
    /// through the store's health: it no longer waits for the store once the answer began,
    /// however long its body takes; a 5xx, or a body cut for its pace, is a failure. `whole` is given a body of at most `keeping` bytes that came whole.
    package func stream(_ key: String, fields: [(HTTPFieldName, String)], prefixLength: Int, keeping: Int,
                        answered: (S3Response) -> S3Client.StreamTarget?, whole: ([UInt8]) -> Void) -> Result<Void, S3Error> {
        ask(key, { (headArrived) throws(S3Error) -> Bool in
            var outage: S3Error?
            let cut = try client.stream(key, fields: fields, maxBytes: maxBytes, prefixLength: prefixLength, keeping: keeping,
                                        headArrived: headArrived, answered: { response in
                guard response.status < 500 else {
                    outage = response.failure
                    return nil
                }
                return answered(response)
            }, whole: whole)
            if let outage { throw outage }
            return cut
        }, cutAfterAnswer: { $0 }).map { _ in }
    }
}
