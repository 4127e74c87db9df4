extension HTTPOrigin.Failure: SourceFailure {
    package var refusedForSize: Bool {
        if case .fetch(.tooLarge) = self { return true }
        return false
    }
}
