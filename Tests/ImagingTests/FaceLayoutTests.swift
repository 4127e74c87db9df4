import Imaging
import Testing
import TestSupport
import ThumbdProtocol

/// Where faces put a cover crop: pure arithmetic, checked over many random layouts.
@Suite struct FaceLayoutTests {
    @Test func grownBoxesStayInsideTheImage() {
        #expect(FaceLayout.grown(PixelRect(x: 10, y: 10, width: 40, height: 40), width: 100, height: 100)
            == PixelRect(x: 0, y: 0, width: 60, height: 60))
        #expect(FaceLayout.grown(PixelRect(x: 40, y: 40, width: 20, height: 20), width: 100, height: 100)
            == PixelRect(x: 35, y: 35, width: 30, height: 30))
    }

    @Test func facesMoveIntoACutAndThoseOutsideAreDropped() {
        let faces = [PixelRect(x: 10, y: 10, width: 20, height: 20), PixelRect(x: 200, y: 200, width: 20, height: 20)]
        #expect(FaceLayout.within(faces, cut: PixelRect(x: 20, y: 0, width: 100, height: 100))
            == [PixelRect(x: 0, y: 10, width: 10, height: 20)])
    }

    @Test func withoutFacesTheCropIsAttention() {
        let options = TransformOptions(width: 100, height: 100, fit: .cover, crop: .face)
        let settled = FaceLayout.settled(options, faces: [], width: 800, height: 600)
        #expect(settled.crop == .attention && settled.focus == nil)
        #expect(ResizePlan.make(sourceWidth: 800, sourceHeight: 600, options: options)
            == ResizePlan.make(sourceWidth: 800, sourceHeight: 600, options: settled))
    }

    @Test func anExplicitFocalPointWins() {
        let options = TransformOptions(width: 100, height: 100, fit: .cover, crop: .face, focus: FocalPoint(x: 0.1, y: 0.1))
        #expect(FaceLayout.settled(options, faces: [PixelRect(x: 700, y: 500, width: 50, height: 50)], width: 800, height: 600)
            == options)
    }

    /// Whenever the crop can hold every face with its margin, it does; otherwise their middle
    /// is as centred as it can be.
    @Test func theCoverCropHoldsEveryFaceWheneverItCan() throws {
        var random = SplitMix64(seed: 36)
        var held = 0
        for _ in 0..<20000 {
            let width = Int.random(in: 200...3000, using: &random), height = Int.random(in: 200...3000, using: &random)
            let faces = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                let side = Int.random(in: 20...max(21, min(width, height) / 3), using: &random)
                return PixelRect(x: Int.random(in: 0...(width - side), using: &random), y: Int.random(in: 0...(height - side), using: &random),
                                 width: side, height: side)
            }
            let options = TransformOptions(width: Int.random(in: 16...800, using: &random), height: Int.random(in: 16...800, using: &random),
                                           fit: .cover, crop: .face, enlarge: true)
            let settled = FaceLayout.settled(options, faces: faces, width: width, height: height)
            let plan = ResizePlan.make(sourceWidth: width, sourceHeight: height, options: settled)
            let cut = try #require(plan.extract)
            // Each side rounds on its own: a scale per axis.
            let sx = Double(plan.thumbnailWidth) / Double(width), sy = Double(plan.thumbnailHeight) / Double(height)
            let union = FaceLayout.union(faces, width: width, height: height)!
            // The union in the resized image, rounded outwards; the focal point is kept to
            // thousandths, which may move the crop by that much of the resized image, and a pixel.
            let slackX = 1 + Int((Double(plan.thumbnailWidth) / 2000).rounded(.up))
            let slackY = 1 + Int((Double(plan.thumbnailHeight) / 2000).rounded(.up))
            let left = Int((Double(union.x) * sx).rounded(.down)), right = Int((Double(union.x + union.width) * sx).rounded(.up))
            let top = Int((Double(union.y) * sy).rounded(.down)), bottom = Int((Double(union.y + union.height) * sy).rounded(.up))
            guard right - left + 2 * slackX <= cut.width, bottom - top + 2 * slackY <= cut.height else { continue }
            held += 1
            #expect(cut.left <= left + slackX && cut.left + cut.width >= right - slackX, "\(faces) in \(width)x\(height) -> \(plan)")
            #expect(cut.top <= top + slackY && cut.top + cut.height >= bottom - slackY, "\(faces) in \(width)x\(height) -> \(plan)")
        }
        #expect(held > 5000)
    }
}
