/// `wmpos`: where the watermark sits, by compass point (`c` for the centre).
public enum WatermarkPosition: String, Sendable, CaseIterable {
    case nw, n, ne, w, c, e, sw, s, se
}
