extension S3Location {
    /// The object key of a library path.
    package func key(_ path: LibraryPath) -> String { prefix + path.value }
}
