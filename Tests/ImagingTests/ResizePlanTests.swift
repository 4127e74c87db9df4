import Imaging
import PropertyBased
import Testing
import ThumbdProtocol

@Suite struct ResizePlanTests {
    func plan(_ W: Int, _ H: Int, _ options: TransformOptions) -> ResizePlan {
        ResizePlan.make(sourceWidth: W, sourceHeight: H, options: options)
    }

    func size(_ p: ResizePlan) -> [Int] { [p.outputWidth, p.outputHeight] }

    @Test func oneSideKeepsTheAspectRatio() {
        #expect(size(plan(2000, 1000, TransformOptions(width: 500))) == [500, 250])
        #expect(size(plan(2000, 1000, TransformOptions(height: 100))) == [200, 100])
        #expect(size(plan(333, 100, TransformOptions(width: 100))) == [100, 30])
    }

    @Test func noEnlargementWithoutAskingForIt() {
        #expect(size(plan(200, 100, TransformOptions(width: 400))) == [200, 100])
        #expect(size(plan(200, 100, TransformOptions(width: 400, enlarge: true))) == [400, 200])
        #expect(size(plan(200, 100, TransformOptions(width: 400, height: 400, fit: .fill))) == [100, 100])
        #expect(size(plan(200, 100, TransformOptions(width: 400, height: 100, fit: .fill))) == [200, 50])
        #expect(size(plan(200, 100, TransformOptions(width: 400, height: 400, fit: .fill, enlarge: true))) == [400, 400])
        #expect(size(plan(200, 100, TransformOptions(width: 400, height: 400, fit: .cover))) == [100, 100])
        #expect(size(plan(200, 100, TransformOptions(width: 300, height: 200, fit: .cover))) == [150, 100])
        #expect(size(plan(200, 100, TransformOptions(width: 400, height: 400, fit: .cover, enlarge: true))) == [400, 400])
    }

    @Test func containFitsInsideTheBox() {
        #expect(size(plan(2000, 1000, TransformOptions(width: 300, height: 300))) == [300, 150])
        #expect(size(plan(1000, 2000, TransformOptions(width: 300, height: 300))) == [150, 300])
    }

    @Test func coverFillsTheBoxAndCrops() {
        let centre = plan(2000, 1000, TransformOptions(width: 300, height: 300, fit: .cover))
        #expect(size(centre) == [300, 300])
        #expect(centre.interest == .centre && centre.extract == nil)
        let top = plan(1000, 2000, TransformOptions(width: 300, height: 300, fit: .cover, crop: .top))
        #expect(top.thumbnailWidth == 300 && top.thumbnailHeight == 600)
        #expect(top.extract?.left == 0 && top.extract?.top == 0 && size(top) == [300, 300])
        let bottom = plan(1000, 2000, TransformOptions(width: 300, height: 300, fit: .cover, crop: .bottom))
        #expect(bottom.extract?.top == 300)
        let right = plan(2000, 1000, TransformOptions(width: 300, height: 300, fit: .cover, crop: .right))
        #expect(right.extract?.left == 300 && right.extract?.top == 0)
        #expect(plan(2000, 1000, TransformOptions(width: 300, height: 300, fit: .cover, crop: .attention)).interest == .attention)
    }

    @Test func fillStretches() {
        #expect(size(plan(2000, 1000, TransformOptions(width: 300, height: 300, fit: .fill))) == [300, 300])
    }

    static let cases = Generator<(Int, Int, TransformOptions), Shrink.None<(Int, Int, TransformOptions)>> { rng in
        let W = Int.random(in: 1...5000, using: &rng), H = Int.random(in: 1...5000, using: &rng)
        let w: Int? = Bool.random(using: &rng) ? Int.random(in: 1...4096, using: &rng) : nil
        let h: Int? = Bool.random(using: &rng) ? Int.random(in: 1...4096, using: &rng) : nil
        let options = TransformOptions(width: w, height: h, fit: TransformOptions.Fit.allCases.randomElement(using: &rng)!,
                                       crop: TransformOptions.Crop.allCases.randomElement(using: &rng)!,
                                       enlarge: Bool.random(using: &rng))
        return (W, H, options)
    }

    @Test func outputsStayInTheBoxAndInTheSource() async {
        await propertyCheck(count: 2000, input: Self.cases) { W, H, options in
            let p = ResizePlan.make(sourceWidth: W, sourceHeight: H, options: options)
            #expect(p.outputWidth >= 1 && p.outputHeight >= 1)
            if let w = options.width, let h = options.height {
                #expect(p.outputWidth <= max(w, 1) && p.outputHeight <= max(h, 1))
                if options.enlarge && options.fit != .contain { #expect(p.outputWidth == w && p.outputHeight == h) }
                // Letterboxed: always the box, the image inside it within the source.
                if options.fit == .pad {
                    #expect(p.outputWidth == w && p.outputHeight == h && p.thumbnailWidth <= w && p.thumbnailHeight <= h)
                    if !options.enlarge { #expect(p.thumbnailWidth <= W && p.thumbnailHeight <= H) }
                    return
                }
            } else if let w = options.width {
                #expect(p.outputWidth == (options.enlarge ? w : min(w, W)))
            } else if let h = options.height {
                #expect(p.outputHeight == (options.enlarge ? h : min(h, H)))
            }
            if !options.enlarge { #expect(p.outputWidth <= W && p.outputHeight <= H) }
            if let w = options.width, let h = options.height, options.fit != .contain, p.outputWidth > 4, p.outputHeight > 4 {
                // cover and fill keep the box's aspect ratio (up to rounding).
                let asked = Double(w) / Double(h), got = Double(p.outputWidth) / Double(p.outputHeight)
                #expect(abs(got - asked) / asked < 0.25 || min(p.outputWidth, p.outputHeight) < 20, "\(W)x\(H) \(options): \(p)")
            }
            if let e = p.extract {
                #expect(e.left >= 0 && e.top >= 0 && e.left + e.width <= p.thumbnailWidth && e.top + e.height <= p.thumbnailHeight)
            }
        }
    }
}
