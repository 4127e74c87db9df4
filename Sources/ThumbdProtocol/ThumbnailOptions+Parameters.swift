/// The transform parameters, one row each, in the normal form's order.
extension ThumbnailOptions {
    public static let parameters: [URLParameter] = [
        URLParameter(name: "w",
                     summary: .init(values: "1..\(defaultMaxDimension) pixels (`limits.max_dimension`), or `auto`", defaultValue: "the source's size",
                                    effect: "The width. Alone, it keeps the aspect ratio. `auto`: the `Sec-CH-Width` client hint."),
                     read: { o, text, max throws(ParameterError) in
            if text == "auto" { o.autoWidth = true } else { o.width = try ParameterText.integer("w", text, in: 1...max) }
        }, normal: { n in n.options.autoWidth ? "auto" : n.width.map(String.init) },
           given: { o in o.autoWidth ? "auto" : o.width.map(String.init) }),
        URLParameter(name: "h",
                     summary: .init(values: "1..\(defaultMaxDimension) pixels (`limits.max_dimension`)", defaultValue: "the source's size",
                                    effect: "The height. Alone, it keeps the aspect ratio."),
                     read: { o, text, max throws(ParameterError) in o.height = try ParameterText.integer("h", text, in: 1...max) },
                     normal: { n in n.height.map(String.init) }, given: { o in o.height.map(String.init) }),
        URLParameter(name: "dpr",
                     summary: .init(values: "\(spanText(dprRange)), decimals allowed, or `auto`", defaultValue: "1",
                                    effect: "Multiplies `w` and `h`; the product must stay within `limits.max_dimension`. `auto`: the `Sec-CH-DPR` client hint."),
                     read: { o, text, _ throws(ParameterError) in
            if text == "auto" { return o.autoDPR = true }
            guard let ratio = decimal(text), dprRange.contains(ratio) else {
                throw ParameterError(parameter: "dpr", detail: "dpr must be a number in 1...4 or auto, got '\(text)'")
            }
            o.dpr = ratio
        }, normal: { n in n.options.autoDPR ? "auto" : n.hinted && n.ratio != 1 ? decimalText(n.ratio) : nil },
           given: { o in o.autoDPR ? "auto" : o.dpr.map { decimalText(clampedRatio($0)) } }),
        URLParameter(name: "fit",
                     summary: .init(values: choices(Fit.self), defaultValue: "`contain`",
                                    effect: "How the image fills the `w` x `h` box; only meaningful with both. `pad` letterboxes it in `bg`."),
                     read: { o, text, _ throws(ParameterError) in o.fit = try ParameterText.choice("fit", text, Fit.self) },
                     normal: { n in n.normal.fit != .contain ? n.normal.fit.rawValue : nil }, given: { o in o.fit?.rawValue }),
        URLParameter(name: "crop",
                     summary: .init(values: choices(Crop.self), defaultValue: "`center`",
                                    effect: "What `fit=cover` keeps; ignored with other fits. `face`: every face found, as centred as the box allows; `attention` where none is."),
                     read: { o, text, _ throws(ParameterError) in o.crop = try ParameterText.choice("crop", text, Crop.self) },
                     normal: { n in n.normal.crop != .center ? n.normal.crop.rawValue : nil }, given: { o in o.crop?.rawValue }),
        URLParameter(name: "enlarge",
                     summary: .init(values: "`0`, `1`", defaultValue: "`0`",
                                    effect: "`1` lets the output be larger than the source."),
                     read: { o, text, _ throws(ParameterError) in o.enlarge = try ParameterText.flag("enlarge", text) },
                     normal: { n in n.normal.enlarge ? "1" : nil }, given: { o in o.enlarge.map(flagText) }),
        URLParameter(name: "fm",
                     summary: .init(values: choices(Format.self), defaultValue: "the source's format; GIF, HEIC, TIFF, SVG, PDF and others give PNG",
                                    effect: "The output format. `auto`: AVIF, then JPEG XL, then WebP when `Accept` names them, else JPEG, or PNG for images with alpha."),
                     read: { o, text, _ throws(ParameterError) in o.format = try ParameterText.choice("fm", text, Format.self) },
                     normal: { n in n.options.format?.rawValue }, given: { o in o.format?.rawValue }),
        URLParameter(name: "q",
                     summary: .init(values: "\(spanText(qualityRange)), `auto` or `auto:TARGET` (TARGET \(spanText(AutoQuality.targetRange)))",
                                    defaultValue: "\(OutputFormat.defaultQuality) (`output.quality`), or `auto` with `output.auto_quality`",
                                    effect: "Quality of JPEG, WebP, AVIF and JPEG XL; ignored for PNG. `auto`: the lowest quality whose output stays within the target's distance of its pixels (1 - MS-SSIM on luma; `output.auto_quality_target`, default \(ThumbnailOptions.decimalText(AutoQuality.defaultTarget))), in at most `output.auto_quality_encodes` encodings; JPEG XL gets `output.quality`."),
                     read: { o, text, _ throws(ParameterError) in o.quality = try Quality.read(text) },
                     normal: { n in n.output?.usesQuality ?? true ? n.options.quality.map(\.text) : nil },
                     given: { o in o.quality.map(\.text) }),
        URLParameter(name: "pr",
                     summary: .init(values: "`0`, `1`", defaultValue: "`output.progressive` (false)",
                                    effect: "Progressive JPEG or interlaced PNG; ignored for other formats."),
                     read: { o, text, _ throws(ParameterError) in o.progressive = try ParameterText.flag("pr", text) },
                     normal: { n in n.output?.usesProgressive ?? true ? n.options.progressive.map(flagText) : nil },
                     given: { o in o.progressive.map(flagText) }),
        URLParameter(name: "anim",
                     summary: .init(values: "`0`, `1`", defaultValue: "`0`",
                                    effect: "Every frame of an animated source, for WebP output; ignored for other formats."),
                     read: { o, text, _ throws(ParameterError) in o.animated = try ParameterText.flag("anim", text) },
                     normal: { n in n.normal.animated ? "1" : nil }, given: { o in o.animated.map(flagText) }),
        URLParameter(name: "fp",
                     summary: .init(values: "`x,y`, each 0..1", defaultValue: "none",
                                    effect: "Focal point for `fit=cover`: the crop keeps it as centred as the box allows. Replaces `crop`."),
                     read: { o, text, _ throws(ParameterError) in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { decimal(String($0)) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], (0...1).contains(x), (0...1).contains(y) else {
                throw ParameterError(parameter: "fp", detail: "fp must be x,y with each in 0...1, got '\(text)'")
            }
            o.focus = FocalPoint(x: x, y: y)
        }, normal: { n in n.normal.focus?.description }, given: { o in o.focus?.description }),
        URLParameter(name: "redact",
                     summary: .init(values: choices(Redaction.self), defaultValue: "none",
                                    effect: "Pixelates every face found in the source, before any other operation; animations give their first frame."),
                     read: { o, text, _ throws(ParameterError) in o.redact = try ParameterText.choice("redact", text, Redaction.self) },
                     normal: { n in n.normal.redact?.rawValue }, given: { o in o.redact?.rawValue }),
        URLParameter(name: "rect",
                     summary: .init(values: "`x,y,w,h` in source pixels (after EXIF orientation), each \(spanText(rectRange))", defaultValue: "none",
                                    effect: "Crops that region, first. Outside the source: a 400 naming `rect`."),
                     read: { o, text, _ throws(ParameterError) in
            let numbers = try ParameterText.integers("rect", text, count: [4], in: rectRange, spelling: "x,y,w,h in source pixels")
            guard numbers[2] > 0, numbers[3] > 0 else {
                throw ParameterError(parameter: "rect", detail: "rect must have a width and a height of at least 1, got '\(text)'")
            }
            o.region = PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }, normal: { n in n.normal.region?.description }, given: { o in o.region?.description }),
        URLParameter(name: "trim",
                     summary: .init(values: "a threshold, \(spanText(trimRange))", defaultValue: "none",
                                    effect: "Removes a uniform border (the top-left pixel's colour), before resizing."),
                     read: { o, text, _ throws(ParameterError) in o.trim = try ParameterText.integer("trim", text, in: trimRange) },
                     normal: { n in n.normal.trim.map(String.init) }, given: { o in o.trim.map(String.init) }),
        URLParameter(name: "rot",
                     summary: .init(values: "multiples of 90", defaultValue: "`0`",
                                    effect: "Degrees clockwise, after EXIF orientation."),
                     read: { o, text, _ throws(ParameterError) in
            guard let degrees = integer(Substring(text), signed: true), degrees % 90 == 0, abs(degrees) <= 3600 else {
                throw ParameterError(parameter: "rot", detail: "rot must be a multiple of 90 (degrees clockwise), got '\(text)'")
            }
            o.rotation = degrees
        }, normal: { n in n.normal.rotation != 0 ? String(n.normal.rotation) : nil }, given: { o in o.rotation.map(String.init) }),
        URLParameter(name: "flip",
                     summary: .init(values: choices(Flip.self), defaultValue: "none",
                                    effect: "Mirrors the image, after rotating."),
                     read: { o, text, _ throws(ParameterError) in o.flip = try ParameterText.choice("flip", text, Flip.self) },
                     normal: { n in n.normal.mirrored ? Flip.h.rawValue : nil }, given: { o in o.flip?.rawValue }),
        URLParameter(name: "pad",
                     summary: .init(values: "`t,r,b,l` or one value, each \(spanText(paddingRange)) points", defaultValue: "none",
                                    effect: "Extra padding in points (times `dpr`), filled with `bg`."),
                     read: { o, text, _ throws(ParameterError) in
            let sides = try ParameterText.integers("pad", text, count: [1, 4], in: paddingRange, spelling: "one number or t,r,b,l")
            o.padding = sides.count == 1 ? EdgeInsets(all: sides[0]) : EdgeInsets(top: sides[0], right: sides[1], bottom: sides[2], left: sides[3])
        }, normal: { n in n.normal.padding?.description }, given: { o in o.padding?.description }),
        URLParameter(name: "bg",
                     summary: .init(values: "`rrggbb` or `rrggbbaa`", defaultValue: "white",
                                    effect: "Colour of padding and of what alpha is flattened on."),
                     read: { o, text, _ throws(ParameterError) in
            guard let color = RGBAColor(hex: text) else {
                throw ParameterError(parameter: "bg", detail: "bg must be a colour as rrggbb or rrggbbaa in hexadecimal, got '\(text)'")
            }
            o.background = color
        }, normal: { n in n.normal.background?.description }, given: { o in o.background?.description }),
        URLParameter(name: "blur",
                     summary: .init(values: "\(spanText(blurRange)), or `0`", defaultValue: "`0`: none",
                                    effect: "Gaussian blur of that sigma, after resizing; one decimal."),
                     read: { o, text, _ throws(ParameterError) in
            o.blur = (try ParameterText.decimal("blur", text, in: blurRange, zero: true) * 10).rounded() / 10
        }, normal: { n in n.normal.blur.map(decimalText) }, given: { o in o.blur.map(decimalText) }),
        URLParameter(name: "sharpen",
                     summary: .init(values: "\(spanText(sharpenRange)), or `0`", defaultValue: "`0`: none",
                                    effect: "Unsharp mask of that sigma, after resizing; one decimal."),
                     read: { o, text, _ throws(ParameterError) in
            o.sharpen = (try ParameterText.decimal("sharpen", text, in: sharpenRange, zero: true) * 10).rounded() / 10
        }, normal: { n in n.normal.sharpen.map(decimalText) }, given: { o in o.sharpen.map(decimalText) }),
        URLParameter(name: "gray",
                     summary: .init(values: "`0`, `1`", defaultValue: "`0`",
                                    effect: "`1`: greyscale output."),
                     read: { o, text, _ throws(ParameterError) in o.gray = try ParameterText.flag("gray", text) },
                     normal: { n in n.normal.gray ? "1" : nil }, given: { o in o.gray.map(flagText) }),
        // The watermark's parameters go as given: whether they apply depends on the server's
        // default watermark, which a client cannot know (only the padding's ratio is folded).
        URLParameter(name: "wm",
                     summary: .init(values: "a library image path (PNG with alpha), or `none`", defaultValue: "`watermark.default` (none)",
                                    effect: "Draws that image over the output. `none` turns the default off where `watermark.optional` allows."),
                     read: { o, text, _ throws(ParameterError) in
            guard !text.isEmpty, text.utf8.count <= 1024 else {
                throw ParameterError(parameter: "wm", detail: "wm must be a library image path or none, got '\(text)'")
            }
            o.watermark = text == "none" ? .off : .image(text)
        }, normal: { n in watermarkText(n.options.watermark) }, given: { o in watermarkText(o.watermark) }),
        URLParameter(name: "wmpos",
                     summary: .init(values: choices(WatermarkPosition.self), defaultValue: "`watermark.position` (`\(Watermark.defaultPosition.rawValue)`)",
                                    effect: "Where the watermark sits."),
                     read: { o, text, _ throws(ParameterError) in
            o.watermarkPosition = try ParameterText.choice("wmpos", text, WatermarkPosition.self)
        }, normal: { n in n.options.watermarkPosition?.rawValue }, given: { o in o.watermarkPosition?.rawValue }),
        URLParameter(name: "wmscale",
                     summary: .init(values: spanText(watermarkScaleRange), defaultValue: "`watermark.scale` (\(decimalText(Watermark.defaultScale)))",
                                    effect: "The watermark's width as a fraction of the output's width."),
                     read: { o, text, _ throws(ParameterError) in
            o.watermarkScale = try ParameterText.decimal("wmscale", text, in: watermarkScaleRange)
        }, normal: { n in n.options.watermarkScale.map(decimalText) }, given: { o in o.watermarkScale.map(decimalText) }),
        URLParameter(name: "wmop",
                     summary: .init(values: "0..1", defaultValue: "`watermark.opacity` (\(decimalText(Watermark.defaultOpacity)))",
                                    effect: "The watermark's opacity."),
                     read: { o, text, _ throws(ParameterError) in
            o.watermarkOpacity = try ParameterText.decimal("wmop", text, in: 0...1)
        }, normal: { n in n.options.watermarkOpacity.map(decimalText) }, given: { o in o.watermarkOpacity.map(decimalText) }),
        URLParameter(name: "wmpad",
                     summary: .init(values: "\(spanText(paddingRange)) points", defaultValue: "`watermark.padding` (\(Watermark.defaultPadding))",
                                    effect: "Points (times `dpr`) between the watermark and the edges it sits against."),
                     read: { o, text, _ throws(ParameterError) in
            o.watermarkPadding = try ParameterText.integer("wmpad", text, in: paddingRange)
        }, normal: { n in n.options.watermarkPadding.map { String(Int((Double($0) * (n.hinted ? 1 : n.ratio)).rounded())) } },
           given: { o in o.watermarkPadding.map(String.init) }),
        URLParameter(name: "mb",
                     summary: .init(values: "\(spanText(maxBytesRange)) bytes", defaultValue: "none",
                                    effect: "Maximum output bytes: the quality is lowered by bisection (at most six encodings, down to 10) until it fits. A 400 naming `mb` when even quality 10 (or PNG) does not fit."),
                     read: { o, text, _ throws(ParameterError) in o.maxBytes = try ParameterText.integer("mb", text, in: maxBytesRange) },
                     normal: { n in n.normal.maxBytes.map(String.init) }, given: { o in o.maxBytes.map(String.init) }),
        URLParameter(name: "page",
                     summary: .init(values: spanText(pageRange), defaultValue: "1",
                                    effect: "The page of a PDF or a multi-page TIFF or HEIF. Past the last page: a 400 naming `page`."),
                     read: { o, text, _ throws(ParameterError) in o.page = try ParameterText.integer("page", text, in: pageRange) },
                     normal: { n in n.normal.page != 1 ? String(n.normal.page) : nil }, given: { o in o.page.map(String.init) }),
        URLParameter(name: "t",
                     summary: .init(values: "seconds 0..86,400 (to the millisecond), or `N%` of the duration (`N%25` in a URL)", defaultValue: "1 s, or 10% of a clip shorter than 10 s; later when that frame is black",
                                    effect: "The time of a video's poster frame: the frame shown then, decoded from the keyframe before it. Images ignore it; so does a preview (`anim=1`)."),
                     read: { o, text, _ throws(ParameterError) in
            guard let time = VideoTime(text) else {
                throw ParameterError(parameter: "t", detail: "t must be seconds in 0...86400 or a percentage such as 25%, got '\(text)'")
            }
            o.time = time
        }, normal: { n in n.normal.time?.description }, given: { o in o.time?.description }),
    ]

    private static func flagText(_ on: Bool) -> String { on ? "1" : "0" }

    // The reference's wording of values, from the same constants the rows read with.

    /// `` `contain`, `cover`, ... ``: every value a choice takes.
    private static func choices<T: RawRepresentable & CaseIterable>(_ type: T.Type) -> String where T.RawValue == String {
        T.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
    }

    /// `0..100,000`
    private static func spanText(_ range: ClosedRange<Int>) -> String {
        "\(grouped(range.lowerBound))..\(grouped(range.upperBound))"
    }

    /// `0.3..100`
    private static func spanText(_ range: ClosedRange<Double>) -> String {
        "\(decimalText(range.lowerBound))..\(decimalText(range.upperBound))"
    }

    /// A count with its thousands marked, `1,000,000,000`, so a limit reads at a glance.
    private static func grouped(_ n: Int) -> String {
        let digits = Array(String(n))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    private static func watermarkText(_ choice: WatermarkChoice?) -> String? {
        switch choice {
        case .image(let path): path
        case .off: "none"
        case nil: nil
        }
    }
}
