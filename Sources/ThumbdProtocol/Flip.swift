/// `flip`: mirror the image after rotating it.
public enum Flip: String, Sendable, CaseIterable {
    /// Left and right swapped.
    case h
    /// Top and bottom swapped.
    case v
    /// Both: the same as `rot=180`.
    case hv
}
