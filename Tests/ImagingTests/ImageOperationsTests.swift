import Imaging
import Locking
import Testing
import ThumbdProtocol

/// Each image operation on synthetic images whose pixels say whether it did the right thing.
@Suite struct ImageOperationsTests {
    /// An RGB image of `width` x `height` in `fill`, with each rectangle painted over it.
    static func canvas(_ width: Int, _ height: Int, fill: [UInt8] = [255, 255, 255],
                       _ rects: [(x: Int, y: Int, w: Int, h: Int, colour: [UInt8])] = []) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var colour = fill
                for r in rects where x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h { colour = r.colour }
                pixels.replaceSubrange((y * width + x) * 3..<((y * width + x) * 3 + 3), with: colour)
            }
        }
        return try ImageSynthesis.image(width: width, height: height, bands: 3, pixels: pixels).encode(.png)
    }

    static let red: [UInt8] = [255, 0, 0], green: [UInt8] = [0, 255, 0], blue: [UInt8] = [0, 0, 255], black: [UInt8] = [0, 0, 0]

    func run(_ data: [UInt8], _ options: TransformOptions, watermark: [UInt8]? = nil) throws -> (ImageTransformer.Output, VipsImage) {
        let header = try ImageTransformer.checkedHeader(data, maxPixels: 50_000_000)
        var resolved = options.resolved(for: ImageFormat.sniff(data))
        if options.format == nil { resolved.format = .png }
        let out = try ImageTransformer.transform(data, header: header, options: resolved, watermark: watermark)
        return (out, try VipsImage.decode(out.bytes))
    }

    func close(_ pixel: [Double], _ colour: [UInt8], within tolerance: Double = 12) -> Bool {
        zip(pixel, colour).allSatisfy { abs($0 - Double($1)) <= tolerance }
    }

    @Test func blurLeavesNoSharpEdgeInACheckerboard() throws {
        var rects: [(Int, Int, Int, Int, [UInt8])] = []
        for row in 0..<8 { for col in 0..<8 where (row + col) % 2 == 0 { rects.append((col * 16, row * 16, 16, 16, Self.black)) } }
        let board = try Self.canvas(128, 128, rects.map { (x: $0.0, y: $0.1, w: $0.2, h: $0.3, colour: $0.4) })
        func largestStep(_ image: VipsImage) throws -> Double {
            var largest = 0.0
            var previous = try image.pixel(x: 0, y: 40)[0]
            for x in 1..<128 {
                let value = try image.pixel(x: x, y: 40)[0]
                largest = max(largest, abs(value - previous))
                previous = value
            }
            return largest
        }
        let (_, sharp) = try run(board, TransformOptions())
        let (_, blurred) = try run(board, TransformOptions(blur: 4))
        #expect(try largestStep(sharp) > 200)
        #expect(try largestStep(blurred) < 60, "a blurred edge changes a little per pixel")
    }

    @Test func sharpenRaisesEdgeContrast() throws {
        // A soft edge (blurred once), then sharpened: the step across it grows.
        let soft = try run(try Self.canvas(100, 40, [(x: 50, y: 0, w: 50, h: 40, colour: Self.black)]), TransformOptions(blur: 2)).0.bytes
        func contrast(_ image: VipsImage) throws -> Double { try image.pixel(x: 47, y: 20)[0] - image.pixel(x: 52, y: 20)[0] }
        let (_, plain) = try run(soft, TransformOptions())
        let (_, sharpened) = try run(soft, TransformOptions(sharpen: 2))
        #expect(try contrast(sharpened) > contrast(plain) + 5)
    }

    @Test func rotationAndMirrorMoveTheRedCorner() throws {
        let source = try Self.canvas(200, 100, [(x: 0, y: 0, w: 20, h: 20, colour: Self.red)])
        let (rotated, image) = try run(source, TransformOptions(rotation: 90))
        #expect(rotated.width == 100 && rotated.height == 200)
        // Clockwise: the top-left corner goes to the top right.
        #expect(try close(image.pixel(x: 95, y: 5), Self.red) && close(image.pixel(x: 5, y: 5), [255, 255, 255]))
        let (_, mirrored) = try run(source, TransformOptions(mirrored: true))
        #expect(try close(mirrored.pixel(x: 195, y: 5), Self.red) && close(mirrored.pixel(x: 5, y: 5), [255, 255, 255]))
        let (_, half) = try run(source, TransformOptions(rotation: 180))
        #expect(try close(half.pixel(x: 195, y: 95), Self.red))
    }

    /// A large JPEG is decoded sequentially: turning it read out of order ("out of order read",
    /// 422) until the turn worked on a copy in memory.
    @Test(arguments: [90, 180, 270])
    func aLargeJPEGTurnsWithoutReadingOutOfOrder(_ degrees: Int) throws {
        let photo = try ImageSynthesis.pattern(width: 4000, height: 3000, seed: 3).encode(.jpeg)
        let header = try ImageTransformer.checkedHeader(photo, maxPixels: 50_000_000)
        let out = try ImageTransformer.transform(photo, header: header,
                                                 options: TransformOptions(width: 3000, format: .jpeg, rotation: degrees))
        #expect(degrees == 180 ? (out.width, out.height) == (3000, 2250) : (out.width, out.height) == (2250, 3000))
    }

    @Test func aTransformWhoseStopCheckSaysStopIsCancelledAndOneThatNeverDoesIsMade() throws {
        let photo = try ImageSynthesis.pattern(width: 2000, height: 1500, seed: 4).encode(.jpeg)
        let header = try ImageTransformer.checkedHeader(photo, maxPixels: 50_000_000)
        let asked = Locked(0)
        let stop = StopCheck {
            asked.withLock { $0 += 1 }
            return true
        }
        #expect(throws: ImagingError.cancelled) {
            try ImageTransformer.transform(photo, header: header, options: TransformOptions(width: 1900, format: .png, rotation: 90), stop: stop)
        }
        #expect(asked.withLock { $0 } >= 1)
        let kept = StopCheck { false }
        #expect(try ImageTransformer.transform(photo, header: header, options: TransformOptions(width: 1900, format: .png), stop: kept).width == 1900)
    }

    @Test func padFitLetterboxesInTheBackground() throws {
        let source = try Self.canvas(400, 200, fill: Self.blue)
        let (out, image) = try run(source, TransformOptions(width: 300, height: 300, fit: .pad, background: RGBAColor(hex: "00ff00")))
        #expect(out.width == 300 && out.height == 300)
        // 400x200 inside 300x300 is 300x150: bands of 75 above and below.
        #expect(try close(image.pixel(x: 150, y: 30), Self.green) && close(image.pixel(x: 150, y: 270), Self.green))
        #expect(try close(image.pixel(x: 150, y: 150), Self.blue) && close(image.pixel(x: 150, y: 80), Self.blue))
    }

    @Test func paddingAddsAFrameOfTheBackground() throws {
        let source = try Self.canvas(100, 100, fill: Self.blue)
        let (out, image) = try run(source, TransformOptions(padding: EdgeInsets(top: 10, right: 20, bottom: 30, left: 40),
                                                             background: RGBAColor(hex: "ff0000")))
        #expect(out.width == 160 && out.height == 140)
        #expect(try close(image.pixel(x: 5, y: 5), Self.red) && close(image.pixel(x: 90, y: 60), Self.blue))
        #expect(try close(image.pixel(x: 45, y: 15), Self.blue) && close(image.pixel(x: 35, y: 15), Self.red))
    }

    @Test func trimRemovesAUniformBorder() throws {
        let source = try Self.canvas(200, 200, fill: [250, 250, 250], [(x: 20, y: 20, w: 160, h: 160, colour: Self.blue)])
        let (out, image) = try run(source, TransformOptions(trim: 10))
        #expect(out.width == 160 && out.height == 160)
        #expect(try close(image.pixel(x: 0, y: 0), Self.blue))
    }

    @Test func rectTakesTheRegionAndRefusesOneOutside() throws {
        let source = try Self.canvas(200, 100, fill: Self.red, [(x: 100, y: 0, w: 100, h: 100, colour: Self.green)])
        let (out, image) = try run(source, TransformOptions(region: PixelRect(x: 100, y: 0, width: 100, height: 100)))
        #expect(out.width == 100 && out.height == 100)
        #expect(try close(image.pixel(x: 2, y: 50), Self.green) && close(image.pixel(x: 97, y: 50), Self.green))
        #expect(throws: ImagingError.badParameter(name: "rect", detail: "rect 150,0,100,100 is outside the 200x100 source")) {
            try run(source, TransformOptions(region: PixelRect(x: 150, y: 0, width: 100, height: 100)))
        }
    }

    @Test func aFocalPointAtTheTopLeftKeepsTheTopLeft() throws {
        let source = try Self.canvas(400, 200, [(x: 0, y: 0, w: 50, h: 50, colour: Self.red)])
        let (out, image) = try run(source, TransformOptions(width: 100, height: 100, fit: .cover, focus: FocalPoint(x: 0, y: 0)))
        #expect(out.width == 100 && out.height == 100)
        #expect(try close(image.pixel(x: 5, y: 5), Self.red))
        let (_, centred) = try run(source, TransformOptions(width: 100, height: 100, fit: .cover))
        #expect(try !close(centred.pixel(x: 5, y: 5), Self.red))
    }

    @Test func grayMakesEveryChannelEqual() throws {
        let source = try Self.canvas(60, 60, fill: Self.red, [(x: 30, y: 0, w: 30, h: 60, colour: Self.green)])
        let (_, image) = try run(source, TransformOptions(format: .jpeg, gray: true))
        for (x, y) in [(10, 10), (45, 30)] {
            let pixel = try image.pixel(x: x, y: y)
            #expect(pixel.count == 1 || Set(pixel.prefix(3)).count == 1, "\(pixel)")
        }
    }

    @Test func theWatermarkSitsAtItsPositionWithItsOpacity() throws {
        let base = try Self.canvas(200, 200)
        let mark = try Self.canvas(40, 40, fill: Self.black)
        let options = TransformOptions(watermark: Watermark(path: "mark.png", position: .se, scale: 0.2, opacity: 0.5, padding: 10))
        let (_, image) = try run(base, options, watermark: mark)
        // 40 px wide (0.2 of 200), 10 px from the bottom right: at half opacity, mid-grey.
        let inside = try image.pixel(x: 170, y: 170)
        #expect(inside.prefix(3).allSatisfy { abs($0 - 127) < 12 }, "\(inside)")
        #expect(try close(image.pixel(x: 20, y: 20), [255, 255, 255]) && close(image.pixel(x: 195, y: 195), [255, 255, 255]))
        let (_, topLeft) = try run(base, TransformOptions(watermark: Watermark(path: "mark.png", position: .nw, scale: 0.2,
                                                                               opacity: 1, padding: 0)), watermark: mark)
        #expect(try close(topLeft.pixel(x: 5, y: 5), Self.black))
    }

    @Test func maxBytesLowersTheQualityUntilItFitsOrRefuses() throws {
        let photo = try ImageSynthesis.pattern(width: 800, height: 600, seed: 9).encode(.jpeg)
        let (plain, _) = try run(photo, TransformOptions(width: 400, format: .jpeg, quality: 90))
        #expect(plain.bytes.count > 5000)
        let (fitted, _) = try run(photo, TransformOptions(width: 400, format: .jpeg, quality: 90, maxBytes: 20_000))
        #expect(fitted.bytes.count <= 20_000)
        #expect(throws: ImagingError.badParameter(name: "mb", detail: "mb=100: the smallest encoding is larger")) {
            try run(photo, TransformOptions(width: 400, format: .jpeg, maxBytes: 100))
        }
    }

    @Test func jpegXLOutputStartsWithItsSignature() throws {
        // libvips 8.14 marks its JPEG XL loader untrusted, so thumbd writes JPEG XL but does not read it.
        let source = try Self.canvas(64, 48, fill: Self.blue)
        let header = try ImageTransformer.checkedHeader(source, maxPixels: 50_000_000)
        let out = try ImageTransformer.transform(source, header: header, options: TransformOptions(width: 32, format: .jxl))
        #expect(out.bytes.starts(with: [0xFF, 0x0A]) || out.bytes.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]))
        #expect(out.width == 32 && out.height == 24 && out.format == .jxl)
    }
}
