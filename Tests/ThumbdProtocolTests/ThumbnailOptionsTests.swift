import Foundation
import PropertyBased
import Testing
import TestSupport
@testable import ThumbdProtocol

@Suite struct ThumbnailOptionsTests {
    static let defaults = TransformRequest.Defaults(maxDimension: 4096, quality: 80, progressive: false)

    static func parse(_ query: [(String, String)]) throws(ParameterError) -> ThumbnailOptions {
        let values = try ThumbnailOptions.collect(query.map { (name: $0.0, value: $0.1) }, allowingPreset: true)
        return try ThumbnailOptions(values: values.filter { $0.key != "s" }, maxDimension: 4096)
    }

    @Test func decimalsAreWrittenPlainly() {
        #expect(ThumbnailOptions.decimalText(2) == "2" && ThumbnailOptions.decimalText(2.625) == "2.625")
    }

    @Test func badValuesNameTheirParameter() {
        let cases: [([(String, String)], String)] = [
            ([("w", "0")], "w"), ([("h", "auto")], "h"), ([("dpr", "5")], "dpr"), ([("dpr", "1e0")], "dpr"),
            ([("fit", "squash")], "fit"), ([("crop", "middle")], "crop"), ([("enlarge", "yes")], "enlarge"),
            ([("fm", "gif")], "fm"), ([("q", "101")], "q"), ([("pr", "2")], "pr"), ([("anim", "true")], "anim"),
            ([("x", "1")], "x"), ([("w", "1"), ("w", "2")], "w"),
        ]
        for (query, parameter) in cases {
            #expect(throws: ParameterError.self) { try Self.parse(query) }
            do {
                _ = try Self.parse(query)
            } catch {
                #expect(error.parameter == parameter)
            }
        }
    }

    /// `q=auto` and `q=auto:TARGET` in the normal form, and what the server makes of them.
    @Test func autoQualityIsWrittenAndResolvedWithTheServersSettings() throws {
        #expect(ThumbnailOptions(width: 100, format: .webp, quality: .auto).query == "w=100&fm=webp&q=auto")
        #expect(ThumbnailOptions(width: 100, format: .avif, quality: .autoTarget(0.003)).query == "w=100&fm=avif&q=auto%3A0.003")
        #expect(ThumbnailOptions(width: 100, format: .png, quality: .auto).query == "w=100&fm=png")
        #expect(try Self.parse([("w", "100"), ("q", "auto:0.0030")]).normalQueryItems.map(\.value) == ["100", "auto:0.003"])
        let settings = AutoQuality(target: 0.006, floor: 40, ceiling: 90, encodes: 3)
        let server = TransformRequest.Defaults(maxDimension: 4096, quality: 75, autoQuality: settings)
        let auto = try TransformRequest(Self.parse([("w", "100"), ("fm", "jpeg"), ("q", "auto")]), defaults: server).options
        #expect(auto.autoQuality == settings && auto.quality == 75)
        let named = try TransformRequest(Self.parse([("w", "100"), ("q", "auto:0.002")]), defaults: server).options
        #expect(named.autoQuality == AutoQuality(target: 0.002, floor: 40, ceiling: 90, encodes: 3))
        let png = try TransformRequest(Self.parse([("w", "100"), ("fm", "png"), ("q", "auto")]), defaults: server).options
        #expect(png.autoQuality == nil && png.quality == nil)
        // JPEG XL cannot be measured (thumbd reads none): the fixed quality.
        let jxl = try TransformRequest(Self.parse([("w", "100"), ("fm", "jxl"), ("q", "auto")]), defaults: server).options
        #expect(jxl.autoQuality == nil && jxl.quality == 75)
        #expect(try TransformRequest(Self.parse([("w", "100")]), defaults: server).options.quality == 75)
        var byDefault = server
        byDefault.autoQualityByDefault = true
        #expect(try TransformRequest(Self.parse([("w", "100")]), defaults: byDefault).options.autoQuality == settings)
        #expect(try TransformRequest(Self.parse([("w", "100"), ("q", "60")]), defaults: byDefault).options.quality == 60)
        for bad in ["auto:", "auto:0", "auto:0.06", "auto:x", "automatic", "auto:0.004:40", "-1"] {
            #expect(throws: ParameterError.self, "\(bad)") { try Self.parse([("q", bad)]) }
        }
    }

    @Test func clientHintsResolveToTheExplicitSpelling() throws {
        let hinted = try TransformRequest(Self.parse([("w", "auto"), ("h", "100"), ("fit", "cover")]), defaults: Self.defaults)
        #expect(hinted.hints == .init(width: true, dpr: false))
        let (resolved, dpr) = try hinted.resolved(hintedWidth: 300, hintedDPR: nil)
        #expect(dpr == nil)
        // fit=cover survives until the width is known (it was dropped as "one side only" before).
        #expect(resolved == (try TransformRequest(Self.parse([("w", "300"), ("h", "100"), ("fit", "cover")]), defaults: Self.defaults)))
        let ratio = try TransformRequest(Self.parse([("w", "100"), ("dpr", "auto")]), defaults: Self.defaults)
        let (twice, applied) = try ratio.resolved(hintedWidth: nil, hintedDPR: 9)
        #expect(applied == 4 && twice.options.width == 400)
        #expect(throws: ParameterError(parameter: "w", detail: "w=auto needs the Sec-CH-Width client hint, which the request did not send")) {
            try hinted.resolved(hintedWidth: nil, hintedDPR: nil)
        }
    }

    @Test func hintedOptionsRenderWithoutFolding() {
        #expect(ThumbnailOptions(height: 100, dpr: 2, fit: .cover, autoWidth: true).query == "w=auto&h=100&dpr=2&fit=cover")
        #expect(ThumbnailOptions(width: 100, autoDPR: true).query == "w=100&dpr=auto")
        #expect(ThumbnailOptions(width: 100, format: .webp, progressive: true, animated: true).query == "w=100&fm=webp&anim=1")
        #expect(ThumbnailOptions(width: 100, format: .jpeg, progressive: false, animated: true).query == "w=100&fm=jpeg&pr=0")
        #expect(ThumbnailOptions(width: 100, format: .auto, quality: 50, progressive: true, animated: true).query
            == "w=100&fm=auto&q=50&pr=1&anim=1")
    }

    /// The normal form is a fixed point: read back and rendered again, it is itself.
    @Test func theNormalFormIsStable() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...Int.max)) { seed in
            let items = ThumbnailOptions.random(seed: UInt64(seed)).normalQueryItems
            let reread = try Self.parse(items)
            #expect(reread.normalQueryItems.map { "\($0.name)=\($0.value)" } == items.map { "\($0.name)=\($0.value)" })
        }
    }
}

@Suite struct URLSignerTests {
    /// RFC 4231 test case 2, cut to the 16 bytes a signature keeps.
    @Test func signaturesAreTheFirstHalfOfHMACSHA256() throws {
        #expect(URLSigner(key: "Jefe").signature(of: "what do ya want for nothing?") == "5bdcc146bf60754e6a042426089575c7")
        let signer = URLSigner(key: "a-test-signing-key-0123456789abcdef")
        let signed = signer.sign("/img/a.jpg?w=10")
        #expect(signed.hasPrefix("/img/a.jpg?w=10&s="))
        try signer.verify(signed)
        #expect(throws: URLSigner.Refusal.wrong) { try signer.verify("/img/a.jpg?w=11" + signed.dropFirst("/img/a.jpg?w=10".count)) }
        #expect(throws: URLSigner.Refusal.notLast) { try signer.verify(signed + "&h=1") }
    }
}

/// The parameter table is the one statement of the parameters: the OpenAPI document and the
/// parameter reference (docs/thumbnails.md, whose table `ReferenceDocsTests` renders from the
/// rows) describe each of its rows, and the OpenAPI document names no transform parameter it
/// lacks.
@Suite struct ParameterTableTests {
    static let root = PackageRoot.url

    @Test func theDocumentsDescribeEveryRowAndNoOther() throws {
        let openapi = try String(contentsOf: Self.root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
        let reference = try String(contentsOf: Self.root.appendingPathComponent("docs/thumbnails.md"), encoding: .utf8)
        let names = ThumbnailOptions.parameters.map(\.name)
        let tableLines = reference.split(separator: "\n").filter { $0.hasPrefix("| ") }
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(openapi.contains("\n      name: \(name)\n      in: query\n"), "docs/openapi.yaml does not describe \(name)")
            #expect(tableLines.contains { $0.hasPrefix("| `\(name)` |") }, "the parameter table of docs/thumbnails.md lacks \(name)")
        }
        let section = try #require(openapi.range(of: "\n  parameters:\n")).upperBound
        let described = openapi[section...].split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("      name: ") ? String(line.dropFirst("      name: ".count)) : nil
        }
        let transform = described.prefix { $0 != "url" }.filter { $0 != "path" }
        #expect(Set(transform) == Set(ThumbnailOptions.parameterNames), "\(transform)")
    }

    /// Reading and rendering follow the table: every row reads its normal-form value back.
    @Test func everyRowReadsWhatItRenders() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0...1_000_000)) { seed in
            let options = ThumbnailOptions.random(seed: UInt64(seed))
            for (name, value) in options.normalQueryItems {
                #expect(ThumbnailOptions.parameters.contains { $0.name == name }, "\(name)")
                #expect(throws: Never.self) { _ = try ThumbnailOptions(values: [name: value], maxDimension: 4096 * 4) }
            }
        }
    }
}
