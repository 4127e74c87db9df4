/// What libvips asks while it computes a pipeline (`VipsImage.materialized`): whether to stop,
/// because nobody wants the result any more. Called from libvips' own threads.
public final class StopCheck: Sendable {
    public let shouldStop: @Sendable () -> Bool

    public init(_ shouldStop: @escaping @Sendable () -> Bool) { self.shouldStop = shouldStop }
}
