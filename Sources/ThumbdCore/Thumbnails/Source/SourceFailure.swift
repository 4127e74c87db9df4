/// A store's failure to hand over a source, which can say it was refused for its size (a video
/// is then read in parts instead).
package protocol SourceFailure: Error, Sendable {
    var refusedForSize: Bool { get }
}
