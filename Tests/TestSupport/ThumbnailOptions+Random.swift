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
        options.quality = maybe(Int(random.next() % 100) + 1)
        options.progressive = maybe(random.next() % 2 == 0)
        options.animated = maybe(random.next() % 2 == 0)
        options.autoWidth = random.next() % 8 == 0
        options.autoDPR = random.next() % 8 == 0
        return options
    }
}
