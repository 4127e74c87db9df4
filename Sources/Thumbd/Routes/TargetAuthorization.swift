import Clocks
import HTTP
import ThumbdCore
import ThumbdProtocol
import WireCoding

/// What every image route checks of a request target before anything else: its signature,
/// when `security.key` is set, and its `expires`, against the wall clock. A URL that says it
/// expired is refused whether it is signed or not (without a key anyone could change it, but
/// an app that sets it means it).
struct TargetAuthorization: Sendable {
    let signer: URLSigner?
    let clock: any WallClock

    /// A URL past its `expires`: 403, as S3 answers an expired presigned URL.
    struct Expired: HTTPProblem {
        let at: Int
        var problem: ProblemDetails {
            ProblemDetails(.forbidden, detail: "this URL expired at \(HTTPDate.format(at)) (expires=\(at))",
                           extensions: [("parameter", ThumbnailOptions.expiryParameter)])
        }
    }

    /// Checks `target`; returns when it expires (nil: never), for a memoized target to be
    /// checked again (`stillValid`).
    @discardableResult
    func check(_ target: String) throws -> Int? {
        try signer?.verify(target)
        let expires = try URLSigner.expiry(of: target)
        try stillValid(expires)
        return expires
    }

    /// Valid through the second `expires` names; refused after it.
    func stillValid(_ expires: Int?) throws(Expired) {
        if let expires, clock.unixSeconds() > expires { throw Expired(at: expires) }
    }
}
