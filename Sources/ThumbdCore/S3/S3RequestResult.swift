/// How one request to an S3 store ended, as the metrics label it: a small fixed set.
package enum S3RequestResult: String, Sendable, CaseIterable {
    case ok
    case notModified = "not_modified"
    case preconditionFailed = "precondition_failed"
    case rangeNotSatisfiable = "range_not_satisfiable"
    case notFound = "not_found"
    case denied
    case refused
    case unavailable
    case tooLarge = "too_large"
    case notAnImage = "not_an_image"
    case changed

    package init(_ error: S3Error) {
        self = switch error {
        case .notFound: .notFound
        case .refused(let status, _): status == 403 ? .denied : .refused
        case .unavailable: .unavailable
        case .tooLarge: .tooLarge
        case .notAnImage: .notAnImage
        case .changed: .changed
        }
    }

    package init(_ answer: S3Response) {
        self = switch answer.status {
        case 200, 204, 206: .ok
        case 304: .notModified
        case 412: .preconditionFailed
        case 416: .rangeNotSatisfiable
        default: Self(answer.failure)
        }
    }
}
