import HTTP

/// A variant's prepared hit responses, without and with `Vary: Accept` (the same key serves
/// `fm=webp` and an `fm=auto` that negotiated WebP). Made by `ThumbnailPresenter`.
final class PreparedVariant: Sendable {
    let plain: PreparedRepresentation
    let varying: PreparedRepresentation

    init(plain: PreparedRepresentation, varying: PreparedRepresentation) {
        self.plain = plain
        self.varying = varying
    }

    subscript(negotiatedFormat: Bool) -> PreparedRepresentation { negotiatedFormat ? varying : plain }

    var headBytes: Int { plain.headBytes + varying.headBytes }
}
