// Writes a text file into a Swift source as a string constant, so the binary serves it
// wherever it runs (the EmbedAssets build plugin runs it for the Thumbd target):
//     embed-asset INPUT OUTPUT TYPE
// writes `enum TYPE { static let text = <the file's text> }` into OUTPUT.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: embed-asset INPUT OUTPUT TYPE\n".utf8))
    exit(2)
}
let (input, output, type) = (arguments[1], arguments[2], arguments[3])
guard let text = try? String(contentsOfFile: input, encoding: .utf8) else {
    FileHandle.standardError.write(Data("embed-asset: cannot read \(input) as UTF-8\n".utf8))
    exit(1)
}
// A raw string whose delimiter the text never contains.
var hashes = "#"
while text.contains("\"" + hashes) { hashes += "#" }
let source = """
    // Generated at build time by the EmbedAssets plugin from \((input as NSString).lastPathComponent).
    enum \(type) {
        static let text = \(hashes)\"\"\"
    \(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    \"\"\"\(hashes)
    }

    """
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    FileHandle.standardError.write(Data("embed-asset: cannot write \(output): \(error)\n".utf8))
    exit(1)
}
