/// The transform parameters, one row each, in the normal form's order.
extension ThumbnailOptions {
    public static let parameters: [URLParameter] = [
        URLParameter(name: "w", read: { o, text, max throws(ParameterError) in
            if text == "auto" { o.autoWidth = true } else { o.width = try ParameterText.integer("w", text, in: 1...max) }
        }, normal: { n in n.options.autoWidth ? "auto" : n.width.map(String.init) },
           given: { o in o.autoWidth ? "auto" : o.width.map(String.init) }),
        URLParameter(name: "h", read: { o, text, max throws(ParameterError) in o.height = try ParameterText.integer("h", text, in: 1...max) },
                     normal: { n in n.height.map(String.init) }, given: { o in o.height.map(String.init) }),
        URLParameter(name: "dpr", read: { o, text, _ throws(ParameterError) in
            if text == "auto" { return o.autoDPR = true }
            guard let ratio = decimal(text), dprRange.contains(ratio) else {
                throw ParameterError(parameter: "dpr", detail: "dpr must be a number in 1...4 or auto, got '\(text)'")
            }
            o.dpr = ratio
        }, normal: { n in n.options.autoDPR ? "auto" : n.hinted && n.ratio != 1 ? decimalText(n.ratio) : nil },
           given: { o in o.autoDPR ? "auto" : o.dpr.map { decimalText(clampedRatio($0)) } }),
        URLParameter(name: "fit", read: { o, text, _ throws(ParameterError) in o.fit = try ParameterText.choice("fit", text, Fit.self) },
                     normal: { n in n.normal.fit != .contain ? n.normal.fit.rawValue : nil }, given: { o in o.fit?.rawValue }),
        URLParameter(name: "crop", read: { o, text, _ throws(ParameterError) in o.crop = try ParameterText.choice("crop", text, Crop.self) },
                     normal: { n in n.normal.crop != .center ? n.normal.crop.rawValue : nil }, given: { o in o.crop?.rawValue }),
        URLParameter(name: "enlarge", read: { o, text, _ throws(ParameterError) in o.enlarge = try ParameterText.flag("enlarge", text) },
                     normal: { n in n.normal.enlarge ? "1" : nil }, given: { o in o.enlarge.map(flagText) }),
        URLParameter(name: "fm", read: { o, text, _ throws(ParameterError) in o.format = try ParameterText.choice("fm", text, Format.self) },
                     normal: { n in n.options.format?.rawValue }, given: { o in o.format?.rawValue }),
        URLParameter(name: "q", read: { o, text, _ throws(ParameterError) in o.quality = try ParameterText.integer("q", text, in: qualityRange) },
                     normal: { n in n.output?.usesQuality ?? true ? n.options.quality.map(String.init) : nil },
                     given: { o in o.quality.map(String.init) }),
        URLParameter(name: "pr", read: { o, text, _ throws(ParameterError) in o.progressive = try ParameterText.flag("pr", text) },
                     normal: { n in n.output?.usesProgressive ?? true ? n.options.progressive.map(flagText) : nil },
                     given: { o in o.progressive.map(flagText) }),
        URLParameter(name: "anim", read: { o, text, _ throws(ParameterError) in o.animated = try ParameterText.flag("anim", text) },
                     normal: { n in n.normal.animated ? "1" : nil }, given: { o in o.animated.map(flagText) }),
        URLParameter(name: "fp", read: { o, text, _ throws(ParameterError) in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { decimal(String($0)) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], (0...1).contains(x), (0...1).contains(y) else {
                throw ParameterError(parameter: "fp", detail: "fp must be x,y with each in 0...1, got '\(text)'")
            }
            o.focus = FocalPoint(x: x, y: y)
        }, normal: { n in n.normal.focus?.description }, given: { o in o.focus?.description }),
        URLParameter(name: "rect", read: { o, text, _ throws(ParameterError) in
            let numbers = try ParameterText.integers("rect", text, count: [4], in: rectRange, spelling: "x,y,w,h in source pixels")
            guard numbers[2] > 0, numbers[3] > 0 else {
                throw ParameterError(parameter: "rect", detail: "rect must have a width and a height of at least 1, got '\(text)'")
            }
            o.region = PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        }, normal: { n in n.normal.region?.description }, given: { o in o.region?.description }),
        URLParameter(name: "trim", read: { o, text, _ throws(ParameterError) in o.trim = try ParameterText.integer("trim", text, in: trimRange) },
                     normal: { n in n.normal.trim.map(String.init) }, given: { o in o.trim.map(String.init) }),
        URLParameter(name: "rot", read: { o, text, _ throws(ParameterError) in
            guard let degrees = integer(Substring(text), signed: true), degrees % 90 == 0, abs(degrees) <= 3600 else {
                throw ParameterError(parameter: "rot", detail: "rot must be a multiple of 90 (degrees clockwise), got '\(text)'")
            }
            o.rotation = degrees
        }, normal: { n in n.normal.rotation != 0 ? String(n.normal.rotation) : nil }, given: { o in o.rotation.map(String.init) }),
        URLParameter(name: "flip", read: { o, text, _ throws(ParameterError) in o.flip = try ParameterText.choice("flip", text, Flip.self) },
                     normal: { n in n.normal.mirrored ? Flip.h.rawValue : nil }, given: { o in o.flip?.rawValue }),
        URLParameter(name: "pad", read: { o, text, _ throws(ParameterError) in
            let sides = try ParameterText.integers("pad", text, count: [1, 4], in: paddingRange, spelling: "one number or t,r,b,l")
            o.padding = sides.count == 1 ? EdgeInsets(all: sides[0]) : EdgeInsets(top: sides[0], right: sides[1], bottom: sides[2], left: sides[3])
        }, normal: { n in n.normal.padding?.description }, given: { o in o.padding?.description }),
        URLParameter(name: "bg", read: { o, text, _ throws(ParameterError) in
            guard let color = RGBAColor(hex: text) else {
                throw ParameterError(parameter: "bg", detail: "bg must be a colour as rrggbb or rrggbbaa in hexadecimal, got '\(text)'")
            }
            o.background = color
        }, normal: { n in n.normal.background?.description }, given: { o in o.background?.description }),
        URLParameter(name: "blur", read: { o, text, _ throws(ParameterError) in
            o.blur = (try ParameterText.decimal("blur", text, in: blurRange, zero: true) * 10).rounded() / 10
        }, normal: { n in n.normal.blur.map(decimalText) }, given: { o in o.blur.map(decimalText) }),
        URLParameter(name: "sharpen", read: { o, text, _ throws(ParameterError) in
            o.sharpen = (try ParameterText.decimal("sharpen", text, in: sharpenRange, zero: true) * 10).rounded() / 10
        }, normal: { n in n.normal.sharpen.map(decimalText) }, given: { o in o.sharpen.map(decimalText) }),
        URLParameter(name: "gray", read: { o, text, _ throws(ParameterError) in o.gray = try ParameterText.flag("gray", text) },
                     normal: { n in n.normal.gray ? "1" : nil }, given: { o in o.gray.map(flagText) }),
        // The watermark's parameters go as given: whether they apply depends on the server's
        // default watermark, which a client cannot know (only the padding's ratio is folded).
        URLParameter(name: "wm", read: { o, text, _ throws(ParameterError) in
            guard !text.isEmpty, text.utf8.count <= 1024 else {
                throw ParameterError(parameter: "wm", detail: "wm must be a library image path or none, got '\(text)'")
            }
            o.watermark = text == "none" ? .off : .image(text)
        }, normal: { n in watermarkText(n.options.watermark) }, given: { o in watermarkText(o.watermark) }),
        URLParameter(name: "wmpos", read: { o, text, _ throws(ParameterError) in
            o.watermarkPosition = try ParameterText.choice("wmpos", text, WatermarkPosition.self)
        }, normal: { n in n.options.watermarkPosition?.rawValue }, given: { o in o.watermarkPosition?.rawValue }),
        URLParameter(name: "wmscale", read: { o, text, _ throws(ParameterError) in
            o.watermarkScale = try ParameterText.decimal("wmscale", text, in: watermarkScaleRange)
        }, normal: { n in n.options.watermarkScale.map(decimalText) }, given: { o in o.watermarkScale.map(decimalText) }),
        URLParameter(name: "wmop", read: { o, text, _ throws(ParameterError) in
            o.watermarkOpacity = try ParameterText.decimal("wmop", text, in: 0...1)
        }, normal: { n in n.options.watermarkOpacity.map(decimalText) }, given: { o in o.watermarkOpacity.map(decimalText) }),
        URLParameter(name: "wmpad", read: { o, text, _ throws(ParameterError) in
            o.watermarkPadding = try ParameterText.integer("wmpad", text, in: paddingRange)
        }, normal: { n in n.options.watermarkPadding.map { String(Int((Double($0) * (n.hinted ? 1 : n.ratio)).rounded())) } },
           given: { o in o.watermarkPadding.map(String.init) }),
        URLParameter(name: "mb", read: { o, text, _ throws(ParameterError) in o.maxBytes = try ParameterText.integer("mb", text, in: maxBytesRange) },
                     normal: { n in n.normal.maxBytes.map(String.init) }, given: { o in o.maxBytes.map(String.init) }),
        URLParameter(name: "page", read: { o, text, _ throws(ParameterError) in o.page = try ParameterText.integer("page", text, in: pageRange) },
                     normal: { n in n.normal.page != 1 ? String(n.normal.page) : nil }, given: { o in o.page.map(String.init) }),
    ]

    private static func flagText(_ on: Bool) -> String { on ? "1" : "0" }

    private static func watermarkText(_ choice: WatermarkChoice?) -> String? {
        switch choice {
        case .image(let path): path
        case .off: "none"
        case nil: nil
        }
    }
}
