import ThumbdProtocol

/// Where faces put a crop and what a redaction covers: pure arithmetic on face boxes in an
/// image's pixels.
public enum FaceLayout {
    /// Around a face box (brow to chin, ear to ear) on every side, as a fraction of its size:
    /// the hair and the chin, which a crop keeps and a redaction hides.
    public static let margin = 0.25

    /// The box grown by `margin` on every side, within a `width` x `height` image.
    public static func grown(_ face: PixelRect, width: Int, height: Int) -> PixelRect {
        let dx = Int((Double(face.width) * margin).rounded()), dy = Int((Double(face.height) * margin).rounded())
        let left = max(0, face.x - dx), top = max(0, face.y - dy)
        let right = min(width, face.x + face.width + dx), bottom = min(height, face.y + face.height + dy)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The faces in the coordinates of `cut`, a region of the image they were found in
    /// (`rect`, `trim`), clipped to it; those outside it dropped.
    public static func within(_ faces: [PixelRect], cut: PixelRect) -> [PixelRect] {
        faces.compactMap { face in
            let left = max(face.x, cut.x), top = max(face.y, cut.y)
            let right = min(face.x + face.width, cut.x + cut.width), bottom = min(face.y + face.height, cut.y + cut.height)
            guard right > left, bottom > top else { return nil }
            return PixelRect(x: left - cut.x, y: top - cut.y, width: right - left, height: bottom - top)
        }
    }

    /// Every face with its margin in one box, within the image; nil without faces.
    public static func union(_ faces: [PixelRect], width: Int, height: Int) -> PixelRect? {
        let grown = faces.map { Self.grown($0, width: width, height: height) }.filter { $0.width > 0 && $0.height > 0 }
        guard let first = grown.first else { return nil }
        var left = first.x, top = first.y, right = first.x + first.width, bottom = first.y + first.height
        for box in grown.dropFirst() {
            left = min(left, box.x)
            top = min(top, box.y)
            right = max(right, box.x + box.width)
            bottom = max(bottom, box.y + box.height)
        }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The focal point that keeps the faces' union as centred as a cover crop allows; it holds
    /// the whole union whenever the crop is at least as large. nil without faces.
    public static func focus(for faces: [PixelRect], width: Int, height: Int) -> FocalPoint? {
        guard width > 0, height > 0, let box = union(faces, width: width, height: height) else { return nil }
        return FocalPoint(x: (Double(box.x) + Double(box.width) / 2) / Double(width),
                          y: (Double(box.y) + Double(box.height) / 2) / Double(height))
    }

    /// `crop=face` settled for an image of `width` x `height` with these faces: their focal
    /// point, or `attention` without any. Other options are returned as they are.
    public static func settled(_ options: TransformOptions, faces: [PixelRect], width: Int, height: Int) -> TransformOptions {
        guard options.crop == .face, options.focus == nil else { return options }
        var settled = options
        if let focus = focus(for: faces, width: width, height: height) {
            settled.focus = focus
        } else {
            settled.crop = .attention
        }
        return settled
    }
}
