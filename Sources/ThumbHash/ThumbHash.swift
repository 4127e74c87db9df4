/// ThumbHash placeholder (placeholder file).
public enum ThumbHash {}
