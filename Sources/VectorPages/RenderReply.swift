import Imaging
import WireCoding

/// What a renderer answers one `RenderRequest`: the page's header, its drawing (an
/// uncompressed TIFF), or why not. One frame on its stdout: a fixed head (little-endian), the
/// loader's name, then the body (the TIFF, or a failure's message).
public struct RenderReply: Sendable, Equatable {
    public enum Outcome: UInt8, Sendable {
        case ok = 0
        /// Not an SVG or PDF document.
        case unsupported = 1
        /// The document cannot be read or drawn.
        case undecodable = 2
        /// The drawing would pass its pixel limit (nothing was drawn).
        case tooManyPixels = 3
        /// The page asked is past the last.
        case noSuchPage = 4
        /// The renderer's own hello, at start: the body says whether its sandbox is on.
        case ready = 5
    }

    public var outcome: Outcome
    /// The page's nominal size (header), or the drawing's (draw).
    public var width: Int
    public var height: Int
    public var pages: Int
    public var bands: Int
    public var hasAlpha: Bool
    /// libvips' loader, `svgload_buffer` or `pdfload_buffer`.
    public var loader: String
    public var body: [UInt8]

    public init(outcome: Outcome, width: Int = 0, height: Int = 0, pages: Int = 0, bands: Int = 0, hasAlpha: Bool = false,
                loader: String = "", body: [UInt8] = []) {
        self.outcome = outcome
        self.width = width
        self.height = height
        self.pages = pages
        self.bands = bands
        self.hasAlpha = hasAlpha
        self.loader = loader
        self.body = body
    }

    static let magic: [UInt8] = Array("TVRP".utf8)
    /// magic, outcome, width, height, pages, bands, alpha, loader length, body length.
    public static let headLength = 4 + 1 + 4 + 4 + 4 + 1 + 1 + 2 + 8

    /// The whole frame.
    public var frame: [UInt8] {
        let name = Array(loader.utf8.prefix(255))
        var bytes = Self.magic
        bytes.append(outcome.rawValue)
        bytes.appendLittleEndian(UInt32(clamping: width))
        bytes.appendLittleEndian(UInt32(clamping: height))
        bytes.appendLittleEndian(UInt32(clamping: pages))
        bytes.append(UInt8(clamping: bands))
        bytes.append(hasAlpha ? 1 : 0)
        bytes.appendLittleEndian(UInt16(name.count))
        bytes.appendLittleEndian(UInt64(body.count))
        bytes.reserveCapacity(bytes.count + name.count + body.count)
        bytes += name
        bytes += body
        return bytes
    }

    /// A head read back: the reply without its loader and body, and their lengths; nil for
    /// bytes that are no such head, or lengths past `maxBody`.
    public static func parse(head bytes: [UInt8], maxBody: Int) -> (reply: RenderReply, loaderLength: Int, bodyLength: Int)? {
        guard bytes.count == headLength else { return nil }
        var reader = LittleEndianReader(bytes)
        guard reader.bytes(4) == magic, let outcome = reader.uint8().flatMap(Outcome.init(rawValue:)),
              let width = reader.uint32(), let height = reader.uint32(), let pages = reader.uint32(), let bands = reader.uint8(),
              let alpha = reader.uint8(), let loaderLength = reader.uint16(), let bodyLength = reader.uint64(),
              bodyLength <= UInt64(max(0, maxBody)) else { return nil }
        return (RenderReply(outcome: outcome, width: Int(width), height: Int(height), pages: Int(pages), bands: Int(bands),
                            hasAlpha: alpha != 0), Int(loaderLength), Int(bodyLength))
    }

    /// The header a `.header` reply carries.
    public var header: ImageHeader {
        ImageHeader(width: width, height: height, bands: bands, orientation: 1, pages: max(1, pages), hasAlpha: hasAlpha,
                    bitsPerSample: 8, loader: loader)
    }
}
