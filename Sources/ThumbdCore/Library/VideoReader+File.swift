import FileSystem
import Video

extension VideoReader {
    /// A library file's bytes, read where FFmpeg asks (`FileReading`, positioned reads); the
    /// reader holds the open file.
    package convenience init(file: OpenFile, length: Int) {
        self.init(length: length) { offset, buffer in FileReading.read(file.descriptor, into: buffer, at: Int64(offset)) }
    }
}
