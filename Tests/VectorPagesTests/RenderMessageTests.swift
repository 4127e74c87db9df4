import PropertyBased
import Testing
@testable import VectorPages

@Suite struct RenderMessageTests {
    @Test func aRequestsHeadReadsBackAsItWasWritten() async {
        await propertyCheck(input: Gen.int(in: 1...100_000), Gen.int(in: 0...(1 << 40)), Gen.int(in: 0...(1 << 34))) { page, pixels, memory in
            let request = RenderRequest(operation: page % 2 == 0 ? .draw : .header, page: page, scale: Double(page) / 7 + Double(memory % 7),
                                        maxPixels: pixels, document: [1, 2, 3])
            let read = RenderRequest.parse(head: request.head)
            #expect(read?.documentLength == 3)
            var expected = request
            expected.document = []
            #expect(read?.request == expected)
        }
    }

    @Test func headsThatAreNotRequestsAreRefused() {
        let good = RenderRequest(operation: .draw, page: 1, scale: 0.5, document: []).head
        #expect(RenderRequest.parse(head: Array(good.dropLast())) == nil)
        var wrongMagic = good
        wrongMagic[0] = 0
        #expect(RenderRequest.parse(head: wrongMagic) == nil)
        var noPage = good
        for i in 5..<9 { noPage[i] = 0 }
        #expect(RenderRequest.parse(head: noPage) == nil)
        var badScale = good
        for i in 9..<17 { badScale[i] = 0xFF }  // NaN
        #expect(RenderRequest.parse(head: badScale) == nil)
    }

    @Test func aReplyReadsBackAndItsBodyIsBounded() {
        let reply = RenderReply(outcome: .ok, width: 300, height: 200, pages: 5000, bands: 4, hasAlpha: true, loader: "pdfload_buffer",
                                body: Array(repeating: 7, count: 100))
        let frame = reply.frame
        let head = Array(frame.prefix(RenderReply.headLength))
        let parsed = RenderReply.parse(head: head, maxBody: 100)
        #expect(parsed?.loaderLength == 14 && parsed?.bodyLength == 100)
        #expect(parsed?.reply.width == 300 && parsed?.reply.pages == 5000 && parsed?.reply.hasAlpha == true)
        #expect(RenderReply.parse(head: head, maxBody: 99) == nil)
        #expect(reply.header.isVector && reply.header.pages == 5000)
    }
}
