import ThumbdProtocol

extension ThumbnailOptions {
    /// Options with each parameter given or not at random (no preset): what property tests of
    /// the URL protocol draw from.
    public static func random(seed: UInt64) -> ThumbnailOptions {
        var random = SplitMix64(seed: seed)
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { random.next() % 3 == 0 ? nil : value() }
        func pick<T>(_ all: [T]) -> T { all[Int(random.next() % UInt64(all.count))] }
        var options = ThumbnailOptions()
        options.width = maybe(Int(random.next() % 1500) + 1)
        options.height = maybe(Int(random.next() % 1500) + 1)
        options.dpr = maybe(Double(random.next() % 13) / 4 + 1)
        options.fit = maybe(pick(Fit.allCases))
        options.crop = maybe(pick(Crop.allCases))
        options.enlarge = maybe(random.next() % 2 == 0)
        options.format = maybe(pick(Format.allCases))
        options.quality = maybe(random.next() % 6 != 0 ? .fixed(Int(random.next() % 100) + 1)
            : random.next() % 2 == 0 ? .auto : .autoTarget(Double(random.next() % 90 + 5) / 2000))
        options.progressive = maybe(random.next() % 2 == 0)
        options.animated = maybe(random.next() % 2 == 0)
        options.autoWidth = random.next() % 8 == 0
        options.autoDPR = random.next() % 8 == 0
        // The image operations, each less often, so that plain requests stay common.
        func rarely<T>(_ value: @autoclosure () -> T) -> T? { random.next() % 5 == 0 ? value() : nil }
        options.region = rarely(PixelRect(x: Int(random.next() % 50), y: Int(random.next() % 50), width: Int(random.next() % 400) + 1,
                                          height: Int(random.next() % 400) + 1))
        options.trim = rarely(Int(random.next() % 100) + 1)
        options.focus = rarely(FocalPoint(x: Double(random.next() % 1001) / 1000, y: Double(random.next() % 1001) / 1000))
        options.rotation = rarely(Int(random.next() % 9) * 90 - 360)
        options.flip = rarely(pick(Flip.allCases))
        options.padding = rarely(random.next() % 2 == 0 ? EdgeInsets(all: Int(random.next() % 20))
            : EdgeInsets(top: Int(random.next() % 20), right: Int(random.next() % 20), bottom: Int(random.next() % 20), left: Int(random.next() % 20)))
        options.background = rarely(RGBAColor(red: UInt8(random.next() % 256), green: UInt8(random.next() % 256), blue: 0,
                                              alpha: random.next() % 2 == 0 ? 255 : 128))
        options.blur = rarely(random.next() % 4 == 0 ? 0 : Double(random.next() % 300 + 3) / 10)
        options.sharpen = rarely(random.next() % 4 == 0 ? 0 : Double(random.next() % 97 + 3) / 10)
        options.gray = rarely(random.next() % 2 == 0)
        options.watermark = rarely(random.next() % 3 == 0 ? .off : .image("marks/logo.png"))
        options.watermarkPosition = rarely(pick(WatermarkPosition.allCases))
        options.watermarkScale = rarely(Double(random.next() % 96 + 5) / 100)
        options.watermarkOpacity = rarely(Double(random.next() % 101) / 100)
        options.watermarkPadding = rarely(Int(random.next() % 30))
        options.maxBytes = rarely(Int(random.next() % 100_000) + 100)
        options.page = rarely(Int(random.next() % 3) + 1)
        return options
    }
}
