import ThumbdProtocol

extension TransformOptions {
    /// `w=300,h=200,fit=cover,crop=center,enlarge=0,fm=webp,q=80`: what cache keys and ETags
    /// are made from, so it must stay stable across releases and restarts.
    package var canonicalText: String {
        var parts: [String] = []
        parts.append("w=\(width.map(String.init) ?? "-")")
        parts.append("h=\(height.map(String.init) ?? "-")")
        parts.append("fit=\(fit.rawValue)")
        parts.append("crop=\(crop.rawValue)")
        parts.append("enlarge=\(enlarge ? 1 : 0)")
        parts.append("fm=\(format?.rawValue ?? "source")")
        parts.append("q=\(autoQuality?.keyText ?? quality.map(String.init) ?? "-")")
        // Only when on, so the keys and ETags of everything made before these existed stay valid.
        if progressive { parts.append("pr=1") }
        if animated { parts.append("anim=1") }
        // The image operations, each only when it does something.
        if let redact { parts.append("redact=\(redact.rawValue)") }
        if let region { parts.append("rect=\(region.x):\(region.y):\(region.width):\(region.height)") }
        if let trim { parts.append("trim=\(trim)") }
        if let focus { parts.append("fp=\(focus.x):\(focus.y)") }
        if rotation != 0 { parts.append("rot=\(rotation)") }
        if mirrored { parts.append("flip=h") }
        if let padding { parts.append("pad=\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)") }
        if let background { parts.append("bg=\(background)") }
        if let blur { parts.append("blur=\(blur)") }
        if let sharpen { parts.append("sharpen=\(sharpen)") }
        if gray { parts.append("gray=1") }
        if let watermark {
            parts.append("wm=\(SourceName.escaped(watermark.path)):\(watermark.position.rawValue):\(watermark.scale):\(watermark.opacity):\(watermark.padding)")
        }
        if let maxBytes { parts.append("mb=\(maxBytes)") }
        if page != 1 { parts.append("page=\(page)") }
        if let avifEffort { parts.append("effort=\(avifEffort)") }
        if let time { parts.append("t=\(time)") }
        return parts.joined(separator: ",")
    }
}
