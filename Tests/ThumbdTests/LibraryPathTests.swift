import HTTP
import Testing
@testable import Thumbd
@testable import ThumbdCore

@Suite struct LibraryPathTests {
    @Test(arguments: [("cat.jpg", "cat.jpg"), ("a/b/c.png", "a/b/c.png"), ("space%20name.jpg", "space name.jpg"),
                      ("caf%C3%A9.jpg", "café.jpg"), ("a%2Fb.jpg", "a/b.jpg"), ("x..y.jpg", "x..y.jpg"), ("%252e%252e/x", "%2e%2e/x")])
    func acceptsPlainRelativePaths(_ encoded: String, _ decoded: String) throws {
        #expect(try LibraryPath(encoded: Substring(encoded)).value == decoded)
    }

    @Test func decodesOnce() throws {
        #expect(try LibraryPath(encoded: "space%20name.jpg").value == "space name.jpg")
        #expect(try LibraryPath(encoded: "a%2Fb.jpg").value == "a/b.jpg")
        #expect(try LibraryPath(encoded: "%252e%252e/x").value == "%2e%2e/x")
        #expect(try LibraryPath(encoded: "plus+sign.jpg").value == "plus+sign.jpg")
    }

    @Test(arguments: ["", "..", "../etc/passwd", "a/../../b", "%2e%2e/x", "%2E%2E%2Fetc", "/etc/passwd", "%2Fetc/passwd",
                      "a//b", "a/./b", ".hidden.jpg", "a/.git/config", "dir/", "nul%00.jpg", "a%00/../b"])
    func refusesEscapesAndOddities(_ encoded: String) {
        do {
            let path = try LibraryPath(encoded: Substring(encoded))
            Issue.record("accepted \(encoded) as \(path)")
        } catch .refused {
            // refused like a missing file: 404
        } catch {
            Issue.record("\(encoded) should be refused, not \(error)")
        }
    }

    @Test(arguments: ["%", "%2", "%zz", "%C3%28", "%FF"])
    func malformedEncodingIsABadRequest(_ encoded: String) {
        #expect(throws: LibraryPath.Problem.malformedEncoding) { try LibraryPath(encoded: Substring(encoded)) }
    }
}

@Suite struct QueryParametersTests {
    @Test func parsesAndDecodes() throws {
        let q = try QueryParameters(parsing: "w=300&fit=cover&&name=a%20b+c&flag")
        #expect(q.pairs.map(\.name) == ["w", "fit", "name", "flag"])
        #expect(q.pairs.map(\.value) == ["300", "cover", "a b c", ""])
        #expect(try QueryParameters(parsing: nil).isEmpty)
        #expect(throws: QueryParameters.Problem.self) { try QueryParameters(parsing: "w=%zz") }
        #expect(throws: QueryParameters.Problem.self) { try QueryParameters(parsing: "w=1&=30") }
    }
}
