import FileSystem
import Glibc
import Testing

@Suite struct FileReadingTests {
    /// A temporary file holding `bytes`, open for reading (unlinked at once).
    static func file(_ bytes: [UInt8]) throws -> FileDescriptor {
        var template = Array("/tmp/thumbd-reading-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard let file = FileDescriptor(adopting: fd) else { throw Failure() }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        let written = bytes.withUnsafeBytes { write(file.raw, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Failure() }
        return file
    }

    struct Failure: Error {}

    static let bytes: [UInt8] = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }

    @Test func readsFromAnOffsetAndStopsAtTheEnd() throws {
        let file = try Self.file(Self.bytes)
        #expect(FileReading.read(file.raw, count: 10, at: 5) == Array(Self.bytes[5..<15]))
        #expect(FileReading.read(file.raw, count: 50, at: 99_990) == Array(Self.bytes[99_990...]))
        #expect(FileReading.read(file.raw, count: 10, at: 200_000) == [])
        #expect(FileReading.readExactly(file.raw, count: 50, at: 99_990) == nil)
        #expect(FileReading.readExactly(file.raw, count: 100_000) == Self.bytes)
    }

    @Test func readsAWholeFileWithinItsLimit() throws {
        let file = try Self.file(Self.bytes)
        #expect(FileReading.readWhole(file.raw) == Self.bytes)
        #expect(FileReading.readWhole(file.raw, limit: 100_000) == nil)
        #expect(FileReading.readWhole(try Self.file([]).raw) == nil)
    }

    @Test func aDescriptorThatCannotBeReadIsNil() {
        #expect(FileReading.read(-1, count: 10) == nil)
        #expect(FileReading.readWhole(-1) == nil)
    }
}
