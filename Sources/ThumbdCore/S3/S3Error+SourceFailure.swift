extension S3Error: SourceFailure {
    package var refusedForSize: Bool {
        if case .tooLarge = self { return true }
        return false
    }
}
