import PropertyBased
import Testing
import WireCoding

@Suite struct HTTPDateTests {
    @Test func formatsAndParsesTheThreeForms() {
        #expect(HTTPDate.format(784111777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784111777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784111777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784111777)
    }

    @Test(arguments: ["", "yesterday", "Sun, 06 Nov 1994 08:49:37", "Sun, 32 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT"])
    func rejectsMalformedDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func roundTrips() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...4_102_444_800)) { seconds in
            #expect(HTTPDate.parse(HTTPDate.format(seconds)) == seconds)
        }
    }

    /// The calendar arithmetic against known days: leap years, centuries, the epoch's weekday.
    @Test func formatsKnownDays() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(4_107_542_399) == "Sun, 28 Feb 2100 23:59:59 GMT")
        #expect(HTTPDate.format(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(HTTPDate.parse("Sat, 01 Mar 2025 12:00:00 GMT") == 1_740_830_400)
        // A day past the month's end rolls over, as timegm does.
        #expect(HTTPDate.parse("Mon, 31 Feb 2025 00:00:00 GMT") == HTTPDate.parse("Mon, 03 Mar 2025 00:00:00 GMT"))
    }
}
