import HTTP
import ThumbdCore
import ThumbdProtocol

/// What a Picsum image URL asks of the image: its size, format and effects, as Lorem Picsum
/// reads them. Pure.
struct PicsumVariant: Equatable, Sendable {
    /// Pixels; 0 means the original's.
    var width: Int
    var height: Int
    /// JPEG (no suffix, or `.jpg`) or WebP (`.webp`).
    var format: OutputFormat
    /// `?grayscale`, with or without a value.
    var grayscale = false
    /// `?blur=1...10`, Picsum's Gaussian sigma (`?blur` alone: 5); nil: sharp.
    var blur: Int?

    static let defaultBlur = 5
    static let blurRange = 1...10

    /// The sizes from the path's last one or two segments (the last may end in `.jpg` or
    /// `.webp`), the effects from the query. `largestSide` bounds a side; 0 is always allowed.
    init(sizes: ArraySlice<Substring>, query: QueryParameters, largestSide: Int) throws(ParameterError) {
        let names = sizes.count == 1 ? ["size"] : ["width", "height"]
        var texts = Array(sizes)
        var suffix = Substring("")
        if let dot = texts[texts.count - 1].firstIndex(of: ".") {
            suffix = texts[texts.count - 1][dot...]
            texts[texts.count - 1] = texts[texts.count - 1][..<dot]
        }
        switch suffix.lowercased() {
        case "", ".jpg": format = .jpeg
        case ".webp": format = .webp
        default: throw ParameterError(parameter: "extension", detail: "the extension must be .jpg or .webp, got '\(suffix)'")
        }
        var values: [Int] = []
        for (name, text) in zip(names, texts) {
            guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text) else {
                throw ParameterError(parameter: name, detail: "\(name) must be a whole number of pixels (0: the original's), "
                    + "optionally with .jpg or .webp, got '\(text)'")
            }
            guard n <= largestSide else {
                throw ParameterError(parameter: name, detail: "\(name) must be at most \(largestSide) pixels, got \(n)")
            }
            values.append(n)
        }
        width = values[0]
        height = values.count == 2 ? values[1] : values[0]
        grayscale = query.pairs.contains { $0.name == "grayscale" }
        if let text = query.pairs.first(where: { $0.name == "blur" })?.value {
            // As Picsum: a number must be in range; anything else (or nothing) is the default.
            if let n = Int(text) {
                guard Self.blurRange.contains(n) else {
                    throw ParameterError(parameter: "blur", detail: "blur must be 1...10 (or given alone for 5), got '\(text)'")
                }
                blur = n
            } else {
                blur = Self.defaultBlur
            }
        }
    }

    init(width: Int, height: Int, format: OutputFormat = .jpeg, grayscale: Bool = false, blur: Int? = nil) {
        self.width = width
        self.height = height
        self.format = format
        self.grayscale = grayscale
        self.blur = blur
    }

    /// The size in pixels for an image of `width` x `height` (after orientation): a 0 takes
    /// the image's own.
    func size(forImageOf width: Int, _ height: Int) -> (width: Int, height: Int) {
        (self.width == 0 ? width : self.width, self.height == 0 ? height : self.height)
    }

    var fileExtension: String { format == .webp ? "webp" : "jpg" }

    /// The effects as Picsum writes them in its redirects: names in order, `blur` with its
    /// number, `grayscale` bare.
    var query: String {
        var items: [String] = []
        if let blur { items.append("blur=\(blur)") }
        if grayscale { items.append("grayscale") }
        return items.joined(separator: "&")
    }

    /// `/id/{id}/{w}/{h}.{ext}` with the effects: the URL the random and seeded forms redirect to.
    func target(id: Int, width: Int, height: Int) -> String {
        "/id/\(id)/\(width)/\(height).\(fileExtension)" + (query.isEmpty ? "" : "?" + query)
    }

    /// Picsum's download name: `{id}-{w}x{h}[-blur_{n}][-grayscale].{ext}`.
    func filename(id: Int, width: Int, height: Int) -> String {
        "\(id)-\(width)x\(height)" + (blur.map { "-blur_\($0)" } ?? "") + (grayscale ? "-grayscale" : "") + "." + fileExtension
    }

    /// The thumbnail it is: the box filled from the centre (`fit=cover`, enlarged when the
    /// source is smaller, so always exactly w x h), progressive as Picsum's JPEGs are, the
    /// blur as Picsum's sigma, grey.
    func options(width: Int, height: Int) -> ThumbnailOptions {
        var options = ThumbnailOptions(width: width, height: height, fit: .cover, enlarge: true,
                                       format: format == .webp ? .webp : .jpeg, progressive: format == .jpeg)
        options.blur = blur.map(Double.init)
        options.gray = grayscale ? true : nil
        return options
    }
}
