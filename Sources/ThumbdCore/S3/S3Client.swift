import Clocks
import CurlShim
import Foundation
import HTTP
import WireCoding

/// Signed requests to one bucket of an S3-compatible store. libcurl computes the AWS
/// Signature V4 itself (`CURLOPT_AWS_SIGV4`); thumbd encodes what is signed (the key's path,
/// the listing's query sorted and encoded), because libcurl signs the URL as given. The keys
/// live here and in libcurl only: no message, log line or metric carries them. Blocking:
/// worker threads call it.
package struct S3Client: Sendable {
    package enum Defaults {
        package static let region = "us-east-1"
        /// ListObjectsV2's own maximum.
        package static let listPageSize = 1000
    }

    package enum Operation: String, Sendable {
        case get, head, list, put, delete
    }

    /// Where a streamed body goes, and whether its bytes are also worth keeping whole.
    package struct StreamTarget {
        package let stream: BodyStream
        package let keepsWhole: Bool

        package init(stream: BodyStream, keepsWhole: Bool) {
            self.stream = stream
            self.keepsWhole = keepsWhole
        }
    }

    package let location: S3Location
    package let endpoint: S3Endpoint
    package let region: String
    private let accessKey: String
    private let secretKey: String
    package let connectTimeout: Double
    /// The deadline and the rate every request keeps (`origins.timeout`, `origins.min_rate`,
    /// `origins.stream_timeout`; the shared tier's timeout for its own client).
    package let transfer: TransferLimits
    /// Records each request's outcome and duration (metrics), if set.
    package let metrics: (any S3Metrics)?
    /// Times each request for the metrics.
    package let clock: any MonotonicClock

    private static let started: Bool = tf_global_init() == 0

    package init(location: S3Location, endpoint: S3Endpoint, region: String, accessKey: String, secretKey: String,
         connectTimeout: Double, transfer: TransferLimits, metrics: (any S3Metrics)? = nil, clock: any MonotonicClock = SystemClock()) {
        self.location = location
        self.endpoint = endpoint
        self.region = region
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.connectTimeout = connectTimeout
        self.transfer = transfer
        self.metrics = metrics
        self.clock = clock
    }

    /// Seconds a whole request may take (a streamed one: until its answer goes on).
    package var timeout: Double { transfer.timeout }

    /// The same client, recording into `metrics`.
    package func recording(to metrics: any S3Metrics) -> S3Client {
        S3Client(location: location, endpoint: endpoint, region: region, accessKey: accessKey, secretKey: secretKey,
                 connectTimeout: connectTimeout, transfer: transfer, metrics: metrics, clock: clock)
    }

    /// Whether the store answers at all: a HEAD of the bucket within the probe's timeout, any status below
    /// 500 (a denial is an answer). What a paused store's health asks before requests go again.
    package func probe() -> Bool {
        let limit = StoreHealth.Defaults.probeTimeout
        let quick = S3Client(location: location, endpoint: endpoint, region: region, accessKey: accessKey, secretKey: secretKey,
                             connectTimeout: min(connectTimeout, limit), transfer: TransferLimits(timeout: min(timeout, limit), minRate: 0),
                             metrics: nil, clock: clock)
        guard let answer = try? quick.send(endpoint.listingURL(location.bucket), operation: .head, fields: [], maxBytes: 1 << 16)
        else { return false }
        return answer.status < 500
    }

    /// The object `key`, whatever the status (the caller reads 304, 206, 412, 416 and the rest);
    /// throws when no answer came or the body passed `maxBytes`. `fields` are sent as given
    /// (Range, If-None-Match, ...).
    /// `answered` is told when the store's status line came.
    package func object(_ key: String, head: Bool = false, fields: [(HTTPFieldName, String)] = [], maxBytes: Int,
                        answered: () -> Void = {}) throws(S3Error) -> S3Response {
        try send(objectURL(key), operation: head ? .head : .get, fields: fields, maxBytes: maxBytes, answered: answered)
    }

    /// Stores `body` as the object `key` (200 when stored; the caller reads the rest).
    package func put(_ key: String, body: [UInt8]) throws(S3Error) -> S3Response {
        try send(objectURL(key), operation: .put, fields: [], maxBytes: 1 << 20, body: body)
    }

    /// Deletes the object `key` (204, also when there was none).
    package func delete(_ key: String) throws(S3Error) -> S3Response {
        try send(objectURL(key), operation: .delete, fields: [], maxBytes: 1 << 20)
    }

    private func objectURL(_ key: String) -> String {
        endpoint.bucketURL(location.bucket) + "/" + PercentCoding.encode(key, keepingSlashes: true)
    }

    /// One page of the keys under `prefix` (ListObjectsV2), after `token` (the previous page's).
    package func list(prefix: String, after token: String?, maxKeys: Int = Defaults.listPageSize) throws(S3Error) -> S3ListPage {
        let response = try send(endpoint.listingURL(location.bucket) + "?" + Self.listQuery(prefix: prefix, token: token, maxKeys: maxKeys),
                                operation: .list, fields: [], maxBytes: 64 << 20)
        guard response.status == 200 else { throw response.failure }
        guard let page = S3ListPage(xml: response.body) else { throw .unavailable("the store's listing could not be read") }
        return page
    }

    /// The query of a listing as SigV4 signs it: names in order, values encoded (upper-case
    /// hex, `/` as `%2F`, space as `%20`).
    package static func listQuery(prefix: String, token: String?, maxKeys: Int) -> String {
        var items: [(String, String)] = [("list-type", "2"), ("max-keys", String(maxKeys))]
        if let token { items.append(("continuation-token", token)) }
        if !prefix.isEmpty { items.append(("prefix", prefix)) }
        return items.sorted { $0.0 < $1.0 }
            .map { $0.0 + "=" + PercentCoding.encode($0.1, keepingSlashes: false) }
            .joined(separator: "&")
    }

    /// One signed listing of at most one key: what `serve` asks at start, so that wrong keys,
    /// a wrong bucket or a missing permission stop it with S3's own error code.
    package func checkAccess() throws(S3Error) {
        _ = try list(prefix: location.prefix, after: nil, maxKeys: 1)
    }

    /// The object `key` passed on as it arrives, when it is at most `maxBytes` long (else
    /// `tooLarge`, before any of it goes on). `answered` is given the store's status and
    /// fields with the body's first `prefixLength` bytes (all of it when it is shorter, or when
    /// the status is not 200 or 206: such bodies are read whole, within 1 MB), once, before any
    /// more is read. It returns the stream the rest goes to, finished or failed here when the
    /// transfer ends, or nil to read no more. Throws when no answer came. A 200 of at most
    /// `keeping` bytes whose target keeps it, and that came whole, is given to `whole` before
    /// its last bytes go on. `headArrived` is told when the store's status line came. Returns
    /// true when the transfer was cut for its pace after its answer went on (the client gets a
    /// short body and a closed connection).
    package func stream(_ key: String, fields: [(HTTPFieldName, String)], maxBytes: Int, prefixLength: Int, keeping: Int,
                        headArrived: () -> Void = {}, answered: (S3Response) -> StreamTarget?,
                        whole: ([UInt8]) -> Void) throws(S3Error) -> Bool {
        try withoutActuallyEscaping(answered) { (answered) throws(S3Error) -> Bool in
            let watch = TransferWatch(limits: self.transfer, clock: clock)
            let transfer = StreamedTransfer(prefixLength: prefixLength, keeping: keeping, maxBytes: maxBytes, clock: clock,
                                            watch: watch, answered: answered)
            let response = try send(objectURL(key), operation: .get, fields: fields, maxBytes: maxBytes, transfer: transfer, watch: watch,
                                    answered: headArrived)
            // A body shorter than its prefix, or none: answered now that it is whole.
            if !transfer.hasAnswered { transfer.answer(response) }
            if transfer.succeeded { transfer.finish(whole: whole) }
            return transfer.cut
        }
    }

    private func send(_ url: String, operation: Operation, fields: [(HTTPFieldName, String)], maxBytes: Int,
                      body: [UInt8] = [], transfer: StreamedTransfer? = nil, watch given: TransferWatch? = nil,
                      answered: () -> Void = {}) throws(S3Error) -> S3Response {
        _ = Self.started
        let watch = given ?? TransferWatch(limits: self.transfer, clock: clock)
        let started = clock.now()
        var response = tf_s3_response()
        let lines = fields.map { "\($0.0.text): \($0.1)" }
        let method: String? = switch operation {
        case .put: "PUT"
        case .delete: "DELETE"
        case .get, .head, .list: nil
        }
        withCStrings(lines) { headers in
          body.withUnsafeBufferPointer { upload in
            url.withCString { url in
                "aws:amz:\(region):s3".withCString { sigv4 in
                    accessKey.withCString { access in
                        secretKey.withCString { secret in
                            method.withOptionalCString { method in
                                var request = tf_s3_request(url: url, head: operation == .head ? 1 : 0, method: method,
                                                            body: upload.baseAddress, body_length: upload.count,
                                                            sigv4: sigv4, access_key: access,
                                                            secret_key: secret, headers: headers,
                                                            connect_timeout_ms: max(1, Int(connectTimeout * 1000)),
                                                            total_timeout_ms: max(1, Int(timeout * 1000)), max_bytes: maxBytes,
                                                            writer: transfer == nil ? nil : StreamedTransfer.write,
                                                            writer_context: transfer.map { Unmanaged.passUnretained($0).toOpaque() },
                                                            pace: TransferWatch.hook, pace_context: watch.context)
                                watch.telling(answered) { tf_s3_fetch(&request, &response) }
                            }
                        }
                    }
                }
            }
          }
        }
        defer { tf_s3_response_free(&response) }
        // A streamed body goes at its client's pace: the store's time ends with its answer.
        let seconds = (transfer?.answeredAt ?? clock.now()) - started
        if let transfer, transfer.hasAnswered {
            // The answer went on before its body ended: the stream ends as the transfer does.
            // (TF_ENDED: the reader went, or the caller wanted no body.)
            // Counted before the client can see the end (a closed connection).
            let failed = response.error != TF_OK && response.error != TF_ENDED
            transfer.cut = response.error == TF_CUT
            metrics?.s3Request(operation, failed ? .unavailable : .ok, seconds: seconds)
            if failed { transfer.stream?.fail() }
            transfer.succeeded = response.error == TF_OK
            return S3Response(response, body: [])
        }
        let failure: S3Error? = switch response.error {
        case TF_OK: nil
        case TF_TOO_LARGE, TF_ENDED: .tooLarge(limit: maxBytes)
        case TF_TIMEOUT: .unavailable("the store did not answer within \(DecimalText.format(timeout)) s")
        case TF_CUT: .unavailable("the store's transfer was cut: \(watch.reason)")
        default: .unavailable("cannot reach the store at \(endpoint.description): \(S3Response.text(response.message) ?? "connection failed")")
        }
        if let failure {
            metrics?.s3Request(operation, S3RequestResult(failure), seconds: seconds)
            throw failure
        }
        let answer = S3Response(response, body: transfer?.prefix
                                    ?? response.body.map { Array(UnsafeBufferPointer(start: $0, count: response.body_length)) } ?? [])
        metrics?.s3Request(operation, S3RequestResult(answer), seconds: seconds)
        return answer
    }
}

extension S3Response {
    /// The status and fields libcurl read, with `body`.
    init(_ response: tf_s3_response, body: [UInt8]) {
        self.init(status: Int(response.status), body: body, etag: Self.text(response.etag),
                  lastModified: Self.text(response.last_modified), contentType: Self.text(response.content_type),
                  contentLength: response.content_length >= 0 ? Int64(response.content_length) : nil,
                  contentRange: Self.text(response.content_range))
    }

    /// A C string field of the response, nil when empty.
    static func text<T>(_ field: T) -> String? {
        withUnsafeBytes(of: field) { raw in
            let s = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return s.isEmpty ? nil : s
        }
    }
}

/// `strings` as a NULL-terminated array of C strings, for the duration of `body`.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

extension Optional where Wrapped == String {
    /// The string as a C string for `body`, or NULL.
    fileprivate func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let self else { return body(nil) }
        return self.withCString(body)
    }
}
