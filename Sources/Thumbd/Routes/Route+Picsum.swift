import ThumbdCore

extension Route {
    var isPicsum: Bool { self == .picsumImage || self == .picsumRedirect || self == .picsumInfo || self == .picsumList }

    /// The Picsum-compatible route of a path none of thumbd's own matched: `/v2/list`,
    /// `/id/...`, `/seed/...`, or one or two segments starting with a digit (`/200`,
    /// `/200/300.webp`); nil for anything else. Coarse on purpose: `PicsumTarget` parses the
    /// rest and answers a bad value with a 400 naming it.
    static func picsum(path: Substring) -> Route? {
        if path == PicsumTarget.listPath { return .picsumList }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        let isInfo = segments.count == 3 && segments[2] == "info"
        switch segments.first {
        case "id"?: return isInfo ? .picsumInfo : .picsumImage
        case "seed"?: return isInfo ? .picsumInfo : .picsumRedirect
        default: return PicsumTarget.isRandomForm(segments) ? .picsumRedirect : nil
        }
    }
}
