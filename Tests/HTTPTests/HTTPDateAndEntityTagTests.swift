import HTTP
import PropertyBased
import Testing

@Suite struct EntityTagTests {
    @Test func parsesStrongAndWeakTags() {
        #expect(EntityTag(parsing: "\"abc\"") == EntityTag("abc"))
        #expect(EntityTag(parsing: "W/\"abc\"") == EntityTag("abc", weak: true))
        #expect(EntityTag(parsing: "abc") == nil)
        #expect(EntityTag(parsing: "\"a\"b\"") == nil)
        #expect(EntityTag("x", weak: true).description == "W/\"x\"")
    }

    @Test func comparesWeaklyAndStrongly() {
        let strong = EntityTag("v1"), weak = EntityTag("v1", weak: true)
        #expect(strong.weakMatches(weak))
        #expect(!strong.strongMatches(weak))
        #expect(strong.strongMatches(EntityTag("v1")))
        #expect(!strong.weakMatches(EntityTag("v2")))
    }

    @Test func parsesLists() {
        #expect(EntityTag.List(parsing: "*") == .any)
        #expect(EntityTag.List(parsing: "\"a\", W/\"b\" ,\"c,d\"") == .tags([EntityTag("a"), EntityTag("b", weak: true), EntityTag("c,d")]))
        #expect(EntityTag.List(parsing: "\"a\" \"b\"") == nil)
        #expect(EntityTag.List(parsing: "") == nil)
    }
}

@Suite struct HeaderNameTests {
    /// Pairs of short strings over a small alphabet, so equal-ignoring-case pairs are common.
    static let pairs = Generator<(String, String), Shrink.None<(String, String)>> { rng in
        let chars = Array("aAbB-Zz_é")
        func word() -> String { String((0..<Int.random(in: 0...4, using: &rng)).map { _ in chars.randomElement(using: &rng)! }) }
        let a = word()
        return (a, Bool.random(using: &rng) ? String(a.map { Bool.random(using: &rng) ? Character($0.uppercased()) : $0 }) : word())
    }

    @Test func comparesNamesIgnoringASCIICaseOnly() async {
        await propertyCheck(count: 2000, input: Self.pairs) { pair in
            let (a, b) = pair
            let folded = { (s: String) in String(s.unicodeScalars.map { $0.isASCII ? Character(String($0).lowercased()) : Character($0) }) }
            #expect(a.equalsIgnoringASCIICase(b) == (folded(a) == folded(b)), "\(a) vs \(b)")
            #expect(a.equalsIgnoringASCIICase(b[...]) == a.equalsIgnoringASCIICase(b))
        }
        #expect(!"é".equalsIgnoringASCIICase("É"))  // only ASCII folds
    }

    @Test func connectionTokensAreFoundWithoutCaseOrSpaces() {
        let headers = HTTPHeaders([("Host", "h"), ("connection", " Upgrade ,  CLOSE")])
        #expect(headers.hasToken("close", in: "Connection"))
        #expect(headers.hasToken("upgrade", in: "CONNECTION"))
        #expect(!headers.hasToken("keep-alive", in: "Connection"))
        #expect(!headers.hasToken("close", in: "Host"))
    }
}
