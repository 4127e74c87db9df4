/// The library `serve` opened from `library.root`.
public enum LibraryRoot: Sendable {
    case folder(ImageLibrary)
}
