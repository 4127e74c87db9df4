/// ThumbdKit: the client half of thumbd (placeholder; see docs/THUMBDKIT.md).
public enum ThumbdKit {
    public static let version = "0.1.0"
}
