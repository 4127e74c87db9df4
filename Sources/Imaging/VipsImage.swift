import CVipsShim
import ThumbdProtocol

/// Owns one reference to a libvips image; released when this object goes away, so no
/// path (error or success) can leak one.
public final class VipsImage: @unchecked Sendable {
    package let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { tv_unref(pointer) }

    public var width: Int { Int(tv_width(pointer)) }
    public var height: Int { Int(tv_height(pointer)) }
    public var bands: Int { Int(tv_bands(pointer)) }
    public var hasAlpha: Bool { tv_has_alpha(pointer) != 0 }

    /// Wraps the result of a shim call that returns a new image or NULL with a message.
    package static func make(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> OpaquePointer?) throws(VipsCallError) -> VipsImage {
        try attempt(call).get()
    }

    /// `make` without throwing, for use inside `withUnsafeBytes` (which rethrows untyped).
    static func attempt(_ call: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> OpaquePointer?) -> Result<VipsImage, VipsCallError> {
        var err: UnsafeMutablePointer<CChar>?
        guard let pointer = call(&err) else { return .failure(VipsCallError(message: takeMessage(err))) }
        return .success(VipsImage(pointer))
    }

    /// The pipeline that ends in this image computed into memory. While it runs, `stop` is asked
    /// every 50 ms or so (between tiles); when it says yes, the computation is killed and
    /// `ImagingError.cancelled` thrown.
    func materialized(stop: StopCheck? = nil) throws -> VipsImage {
        var stopped: Int32 = 0
        var err: UnsafeMutablePointer<CChar>?
        let out: OpaquePointer?
        if let stop {
            let box = Unmanaged.passRetained(stop)
            defer { box.release() }
            out = tv_materialize(pointer, { context in
                Unmanaged<StopCheck>.fromOpaque(context!).takeUnretainedValue().shouldStop() ? 1 : 0
            }, box.toOpaque(), &stopped, &err)
        } else {
            out = tv_materialize(pointer, nil, nil, &stopped, &err)
        }
        if stopped != 0 {
            if let out { tv_unref(out) }
            tv_free(err)
            throw ImagingError.cancelled
        }
        guard let out else { throw VipsCallError(message: takeMessage(err)) }
        return VipsImage(out)
    }

    /// Pixel values at (x, y), one per band.
    public func pixel(x: Int, y: Int) throws(VipsCallError) -> [Double] {
        var values = [Double](repeating: 0, count: 8)
        var err: UnsafeMutablePointer<CChar>?
        let n = tv_getpoint(pointer, Int32(x), Int32(y), &values, 8, &err)
        guard n >= 0 else { throw VipsCallError(message: takeMessage(err)) }
        return Array(values[0..<Int(n)])
    }

    /// The height of one frame (the whole height for a single-frame image).
    public var frameHeight: Int { Int(tv_page_height(pointer)) }

    /// Encodes with metadata stripped unless `strip` is false (tests build EXIF inputs).
    public func encode(_ format: OutputFormat, quality: Int = OutputFormat.defaultQuality, strip: Bool = true,
                       progressive: Bool = false, avifEffort: Int = OutputFormat.defaultAVIFEffort) throws(VipsCallError) -> [UInt8] {
        var out: UnsafeMutableRawPointer?
        var length = 0
        var err: UnsafeMutablePointer<CChar>?
        guard tv_save(pointer, format.shimFormat, Int32(quality), Int32(avifEffort), strip ? 1 : 0, progressive ? 1 : 0, &out, &length, &err) == 0,
              let out else {
            throw VipsCallError(message: takeMessage(err))
        }
        defer { tv_free(out) }
        let bytes = Array(UnsafeRawBufferPointer(start: out, count: length))
        return strip && format == .webp ? WebPContainer.removingMetadata(bytes) : bytes
    }

    /// Fully decodes an encoded image (tests and tools; the pipeline uses thumbnails).
    public static func decode(_ bytes: [UInt8]) throws(VipsCallError) -> VipsImage {
        Vips.start()
        return try bytes.withUnsafeBytes { raw in
            attempt { tv_load(raw.baseAddress, raw.count, $0) }
        }.get()
    }
}

public struct VipsCallError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
