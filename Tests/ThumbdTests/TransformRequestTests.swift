import HTTP
import Imaging
import Testing
@testable import Thumbd
@testable import ThumbdCore
import ThumbdProtocol

@Suite struct TransformRequestTests {
    let maxDimension = ThumbdConfig.Limits().maxDimension
    let presets = ["thumb": "w=150&h=150&fit=cover", "hero": "w=1200&fm=webp&q=70", "bad": "w=%zz", "loop": "p=thumb"]

    func parse(_ query: String, presets: [String: String]? = nil) throws(ParameterError) -> TransformRequest {
        let parameters = try! QueryParameters(parsing: Substring(query))
        return try TransformRequest(query: parameters, presets: presets ?? self.presets, maxDimension: maxDimension)
    }

    func failure(_ query: String) -> ParameterError? {
        do {
            _ = try parse(query)
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesEveryParameter() throws {
        let r = try parse("w=300&h=200&fit=cover&crop=entropy&enlarge=1&fm=webp&q=70")
        #expect(r.options == TransformOptions(width: 300, height: 200, fit: .cover, crop: .entropy, enlarge: true, format: .webp, quality: 70))
        #expect(!r.negotiatesFormat)
        #expect(try parse("w=10&fm=auto").negotiatesFormat)
    }

    @Test func dprMultipliesTheBox() throws {
        #expect(try parse("w=100&h=50&dpr=2").options == parse("w=200&h=100").options)
        #expect(try parse("w=101&dpr=1.5").options.width == 152)
        #expect(try parse("dpr=3").options == parse("").options)
    }

    @Test func equivalentRequestsNormalizeToTheSameOptions() throws {
        let a = try parse("h=100&w=100&fit=contain&q=80")
        let b = try parse("w=100&h=100")
        let c = try parse("w=50&h=50&dpr=2&crop=top")
        #expect(a.options == b.options && b.options == c.options)
        #expect(a.options.canonicalText == c.options.canonicalText)
        #expect(try parse("w=100&fm=png&q=10").options == parse("w=100&fm=png").options)
    }

    @Test func presetsApplyAndExplicitParametersWin() throws {
        #expect(try parse("p=thumb").options == TransformOptions(width: 150, height: 150, fit: .cover))
        #expect(try parse("p=thumb&w=300").options == TransformOptions(width: 300, height: 150, fit: .cover))
        #expect(try parse("p=hero&fm=avif").options == TransformOptions(width: 1200, format: .avif, quality: 70))
    }

    @Test func aSignatureIsNotATransform() throws {
        #expect(!TransformRequest.asksForTransform(try QueryParameters(parsing: "s=abc")))
        #expect(TransformRequest.asksForTransform(try QueryParameters(parsing: "w=1&s=abc")))
        #expect(try parse("w=10&s=0123").options == parse("w=10").options)
    }

    @Test func presetsCarryTheImageOperations() throws {
        let presets = ["mono": "w=200&gray=1&rot=90&bg=000000&pad=4&fm=jpeg", "soft": "blur=2&sharpen=0"]
        let mono = try parse("p=mono", presets: presets).options
        #expect(mono.gray && mono.rotation == 90 && mono.padding == EdgeInsets(all: 4) && mono.background == RGBAColor(hex: "000000"))
        // Explicit parameters win over the preset's, image operations included.
        let light = try parse("p=mono&rot=0&gray=0", presets: presets).options
        #expect(!light.gray && light.rotation == 0 && light.width == 200)
        #expect(try parse("p=soft&w=50", presets: presets).options.blur == 2)
    }

    @Test(arguments: [
        ("w=0", "w"), ("w=4097", "w"), ("w=-5", "w"), ("w=1.5", "w"), ("w=abc", "w"), ("w=", "w"), ("w=1e3", "w"), ("w=+5", "w"),
        ("h=0", "h"), ("h=99999", "h"), ("w=10&w=20", "w"), ("dpr=0.5", "dpr"), ("dpr=5", "dpr"), ("dpr=two", "dpr"),
        ("dpr=1.", "dpr"), ("dpr=-1", "dpr"), ("w=3000&dpr=2", "dpr"), ("fit=stretch", "fit"), ("crop=middle", "crop"),
        ("enlarge=yes", "enlarge"), ("enlarge=2", "enlarge"), ("fm=gif", "fm"), ("fm=jpg", "fm"), ("fm=", "fm"),
        ("q=0", "q"), ("q=101", "q"), ("q=high", "q"), ("p=nope", "p"), ("p=bad", "p"), ("p=loop", "p"),
        ("zoom=2", "zoom"), ("W=100", "W"), ("w=100&blurr=3", "blurr"), ("fm=webp&fm=png", "fm"),
        // The image operations.
        ("blur=0.2", "blur"), ("blur=101", "blur"), ("blur=-1", "blur"), ("blur=x", "blur"), ("sharpen=11", "sharpen"),
        ("sharpen=0.1", "sharpen"), ("rot=45", "rot"), ("rot=91", "rot"), ("rot=ninety", "rot"), ("rot=", "rot"),
        ("flip=x", "flip"), ("flip=vh", "flip"), ("bg=fff", "bg"), ("bg=gg0000", "bg"), ("bg=ff00001", "bg"), ("pad=1,2", "pad"),
        ("pad=-1", "pad"), ("pad=1001", "pad"), ("pad=1,2,3,x", "pad"), ("trim=0", "trim"), ("trim=101", "trim"),
        ("rect=1,2,3", "rect"), ("rect=0,0,0,10", "rect"), ("rect=-1,0,10,10", "rect"), ("fp=0.5", "fp"), ("fp=1.5,0", "fp"),
        ("fp=a,b", "fp"), ("gray=2", "gray"), ("wm=", "wm"), ("wmpos=top", "wmpos"), ("wmscale=0.01", "wmscale"),
        ("wmscale=2", "wmscale"), ("wmop=1.5", "wmop"), ("wmpad=-3", "wmpad"), ("mb=10", "mb"), ("mb=big", "mb"),
        ("page=0", "page"), ("page=x", "page"), ("fit=squeeze", "fit"), ("fm=heic", "fm"),
    ])
    func badParametersAreNamed(_ query: String, _ parameter: String) {
        let error = failure(query)
        #expect(error?.parameter == parameter, "\(query) -> \(String(describing: error))")
        #expect(error?.detail.isEmpty == false)
    }
}
