/// How one fetch or revalidation of a remote original ended, as the metrics label it.
package enum OriginFetchResult: String, Sendable, CaseIterable {
    case ok
    case notModified = "not_modified"
    /// The origin answered a status that is no image.
    case status
    case notAnImage = "not_an_image"
    case badURL = "bad_url"
    case notAllowed = "not_allowed"
    case blockedAddress = "blocked_address"
    case timeout
    case tooSlow = "too_slow"
    case tooLarge = "too_large"
    case connect
    case tooManyRedirects = "too_many_redirects"

    package init(_ failure: OriginFetcher.Failure) {
        self = switch failure {
        case .badURL: .badURL
        case .notAllowed: .notAllowed
        case .blockedAddress: .blockedAddress
        case .timeout: .timeout
        case .tooSlow: .tooSlow
        case .tooLarge: .tooLarge
        case .connect: .connect
        case .tooManyRedirects: .tooManyRedirects
        case .status: .status
        }
    }
}
