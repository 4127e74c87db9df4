import HTTP

/// A variant's prepared hit responses, without and with `Vary: Accept` (the same key serves
/// `fm=webp` and an `fm=auto` that negotiated WebP). Made by `ThumbnailPresenter`.
package final class PreparedVariant: Sendable {
    package let plain: PreparedRepresentation
    package let varying: PreparedRepresentation

    package init(plain: PreparedRepresentation, varying: PreparedRepresentation) {
        self.plain = plain
        self.varying = varying
    }

    package subscript(negotiatedFormat: Bool) -> PreparedRepresentation { negotiatedFormat ? varying : plain }

    package var headBytes: Int { plain.headBytes + varying.headBytes }
}
