/// A library file that changed under a read.
package enum LibraryChange: Error, Sendable {
    case changedWhileRead
}
