/// A library file that changed under a read.
enum LibraryChange: Error, Sendable {
    case changedWhileRead
}
