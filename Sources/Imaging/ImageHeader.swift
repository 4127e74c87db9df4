import CVipsShim

/// What an image's header says, read without decoding any pixel.
public struct ImageHeader: Sendable, Equatable {
    public var width: Int
    /// Height of one page (frame).
    public var height: Int
    public var bands: Int
    /// EXIF orientation 1...8.
    public var orientation: Int
    public var pages: Int
    public var hasAlpha: Bool
    public var bitsPerSample: Int
    /// libvips loader nickname, such as `jpegload_buffer`.
    public var loader: String
    /// A progressive JPEG or an interlaced PNG: their decoders hold the whole image, not a
    /// strip (read from the bytes, `Interlace.detect`).
    public var interlaced = false

    public init(width: Int, height: Int, bands: Int, orientation: Int, pages: Int, hasAlpha: Bool, bitsPerSample: Int,
                loader: String, interlaced: Bool = false) {
        self.width = width
        self.height = height
        self.bands = bands
        self.orientation = orientation
        self.pages = pages
        self.hasAlpha = hasAlpha
        self.bitsPerSample = bitsPerSample
        self.loader = loader
        self.interlaced = interlaced
    }

    /// Vector sources (SVG, PDF) are drawn at any size: their size is only nominal.
    public var isVector: Bool { loader.hasPrefix("svgload") || loader.hasPrefix("pdfload") }

    /// Width and height once the EXIF orientation is applied.
    public var orientedSize: (width: Int, height: Int) {
        (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    /// The header of `page` (from 1): the pages of a PDF, TIFF or HEIF may each have their own
    /// size. SVG and PDF documents are refused here (`unsupportedFormat`) before libvips parses
    /// them, except in a renderer process (`VectorDrawing`).
    public static func read(_ bytes: [UInt8], page: Int = 1) throws(ImagingError) -> ImageHeader {
        Vips.start()
        var header = tv_header()
        var err: UnsafeMutablePointer<CChar>?
        let rc = bytes.withUnsafeBytes { tv_read_header_page($0.baseAddress, $0.count, Int32(max(0, page - 1)), &header, &err) }
        var read = try make(header, rc: rc, err: err)
        read.interlaced = Interlace.detect(bytes)
        return read
    }

    /// The header of an image file, read without decoding (only its first blocks are read).
    public static func read(path: String) throws(ImagingError) -> ImageHeader {
        Vips.start()
        var header = tv_header()
        var err: UnsafeMutablePointer<CChar>?
        let rc = tv_read_header_file(path, &header, &err)
        return try make(header, rc: rc, err: err)
    }

    private static func make(_ header: tv_header, rc: Int32, err: UnsafeMutablePointer<CChar>?) throws(ImagingError) -> ImageHeader {
        guard rc == 0 else {
            let message = takeMessage(err)
            throw rc == -2 ? .unsupportedFormat : .undecodable(message)
        }
        let loader = withUnsafeBytes(of: header.loader) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return ImageHeader(width: Int(header.width), height: Int(header.height), bands: Int(header.bands),
                           orientation: max(1, Int(header.orientation)), pages: max(1, Int(header.pages)),
                           hasAlpha: header.has_alpha != 0, bitsPerSample: Int(header.bits), loader: loader)
    }
}
