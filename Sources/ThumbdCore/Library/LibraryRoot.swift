/// The library `serve` opened from `library.root`: a folder, or an S3 bucket whose access was
/// checked at start.
public enum LibraryRoot: Sendable {
    case folder(ImageLibrary)
    case bucket(S3Location)
}
