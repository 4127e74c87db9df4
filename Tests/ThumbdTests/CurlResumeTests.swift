import Foundation
import Testing
import TestSupport

/// A real client resumes a download it lost halfway: curl is stopped mid-file, then
/// `curl -C -` finishes it with a Range request and the result matches byte for byte.
@Suite struct CurlResumeTests {
    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        try runProgram("/usr/bin/env", arguments)
    }

    @Test func anInterruptedDownloadResumesAndMatches() throws {
        let original = LibraryFixture.fakeJPEG(1_500_000, seed: 42)
        let f = try LibraryFixture(files: ["big.jpg": original])
        let url = "http://127.0.0.1:\(f.port)/img/big.jpg"
        let out = f.root.appendingPathComponent("download.jpg").path

        // The reader goes away after 400 KB: curl dies mid-file (write error), leaving a prefix.
        try run(["sh", "-c", "curl -s '\(url)' | head -c 400000 > '\(out)'"])
        let partial = try FileManager.default.attributesOfItem(atPath: out)[.size] as! Int
        #expect(partial == 400_000)

        let resumed = try run(["curl", "-s", "-C", "-", "-o", out, "-w", "%{http_code}", url])
        #expect(resumed.status == 0)
        #expect(resumed.output == "206")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == original)
    }
}
