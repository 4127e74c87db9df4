import ThumbdProtocol

extension TransformOptions {
    /// `w=300,h=200,fit=cover,crop=center,enlarge=0,fm=webp,q=80`: what cache keys and ETags
    /// are made from, so it must stay stable across releases and restarts.
    var canonicalText: String {
        var parts: [String] = []
        parts.append("w=\(width.map(String.init) ?? "-")")
        parts.append("h=\(height.map(String.init) ?? "-")")
        parts.append("fit=\(fit.rawValue)")
        parts.append("crop=\(crop.rawValue)")
        parts.append("enlarge=\(enlarge ? 1 : 0)")
        parts.append("fm=\(format?.rawValue ?? "source")")
        parts.append("q=\(quality.map(String.init) ?? "-")")
        // Only when on, so the keys and ETags of everything made before these existed stay valid.
        if progressive { parts.append("pr=1") }
        if animated { parts.append("anim=1") }
        return parts.joined(separator: ",")
    }
}
