import PropertyBased
import Testing
import WireCoding

@Suite struct CRC32CTests {
    /// The check value of CRC-32C and RFC 3720's test vectors.
    @Test func matchesPublishedVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum(Array(UInt8(0)...UInt8(31))) == 0x46DD_794E)
        #expect(CRC32C.checksum([UInt8]()) == 0)
    }

    /// The eight-byte path and the byte path agree, and checksums continue across pieces.
    @Test func continuesAcrossAnySplit() async {
        await propertyCheck(count: 200, input: Gen.uint8().array(of: 0...100), Gen.int(in: 0...100)) { bytes, cut in
            let at = min(cut, bytes.count)
            let whole = CRC32C.checksum(bytes)
            let first = CRC32C.checksum(Array(bytes[..<at]))
            #expect(CRC32C.checksum(Array(bytes[at...]), continuing: first) == whole)
            var bytewise = whole ^ whole
            for byte in bytes { bytewise = CRC32C.checksum([byte], continuing: bytewise) }
            #expect(bytewise == whole)
        }
    }
}

@Suite struct PercentCodingTests {
    @Test func encodesAllButUnreservedWithUpperCaseHex() {
        #expect(PercentCoding.encode("/dir/my photo+1 é.jpg", keepingSlashes: true) == "/dir/my%20photo%2B1%20%C3%A9.jpg")
        #expect(PercentCoding.encode("a/b?c=d&e", keepingSlashes: false) == "a%2Fb%3Fc%3Dd%26e")
        #expect(PercentCoding.encode("AZaz09-_.~", keepingSlashes: false) == "AZaz09-_.~")
    }

    @Test func decodesStrictly() {
        #expect(PercentCoding.decode("a%2fb%C3%A9") == Array("a/bé".utf8))
        #expect(PercentCoding.decode("%4") == nil)
        #expect(PercentCoding.decode("%zz") == nil)
    }

    @Test func roundTrips() async {
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...40)) { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(PercentCoding.decode(PercentCoding.encode(text, keepingSlashes: true)) == Array(text.utf8))
        }
    }
}

@Suite struct DecimalTextTests {
    @Test func writesPlainDecimals() {
        #expect(DecimalText.format(2) == "2")
        #expect(DecimalText.format(1.5) == "1.5")
        #expect(DecimalText.format(2.625) == "2.625")
        #expect(DecimalText.format(2.62549, fractionDigits: 4) == "2.6255")
        #expect(DecimalText.format(1.0004) == "1")
        #expect(Hex.lowercase([0x00, 0xAB, 0x7F]) == "00ab7f")
    }
}

@Suite struct ContentRangeTests {
    /// A 206's field read into its bounds; malformed ones and the unsatisfied form are nil.
    @Test func readsA206sField() {
        #expect(ContentRange(parsing: "bytes 100-199/200") == ContentRange(first: 100, last: 199, completeLength: 200))
        #expect(ContentRange(parsing: " bytes 0-9/* ") == ContentRange(first: 0, last: 9, completeLength: nil))
        #expect(ContentRange(parsing: "bytes 100-99/200") == nil && ContentRange(parsing: "bytes */200") == nil)
        #expect(ContentRange(parsing: "bytes 0-199/200x") == nil && ContentRange(parsing: "items 0-1/2") == nil)
    }
}

@Suite struct LittleEndianTests {
    /// What is appended reads back in order, and a read past the end is nil and takes nothing.
    @Test func integersReadBackAsWritten() async {
        await propertyCheck(count: 200, input: Gen.uint64(), Gen.uint32(), Gen.uint8().array(of: 0...20)) { wide, narrow, tail in
            var bytes: [UInt8] = []
            bytes.appendLittleEndian(wide)
            bytes.appendLittleEndian(narrow)
            bytes.appendLittleEndian(UInt16(truncatingIfNeeded: narrow))
            bytes += tail
            var reader = LittleEndianReader(bytes)
            #expect(reader.uint64() == wide && reader.uint32() == narrow && reader.uint16() == UInt16(truncatingIfNeeded: narrow))
            #expect(reader.bytes(tail.count) == tail && reader.position == bytes.count)
            #expect(reader.uint8() == nil && reader.bytes(1) == nil && reader.position == bytes.count)
        }
    }

    @Test func isLittleEndianAndPatchesInPlace() {
        var bytes: [UInt8] = [9, 9, 9, 9, 9, 9]
        bytes.storeLittleEndian(UInt32(0x0403_0201), at: 1)
        #expect(bytes == [9, 1, 2, 3, 4, 9])
        var reader = LittleEndianReader(bytes, at: 1)
        #expect(reader.uint32() == 0x0403_0201)
        var short = LittleEndianReader([1, 2, 3])
        #expect(short.uint32() == nil && short.uint16() == 0x0201 && short.position == 2)
    }
}
