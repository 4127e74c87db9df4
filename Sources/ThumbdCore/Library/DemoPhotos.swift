import Foundation

/// Real photographs for the demo library, where the machine has them: the nature wallpapers
/// of Debian's `mate-backgrounds` package (GPL-2+), with the authors its copyright file names.
package struct DemoPhotos: Sendable {
    package static let packageFolder = "/usr/share/backgrounds/mate/nature"
    package static let packageCopyright = "/usr/share/doc/mate-backgrounds/copyright"

    package struct Photo: Sendable, Equatable {
        /// The file's full path.
        package var file: String
        /// As the copyright file names them, in its order; empty when it names nobody.
        package var authors: [String]

        package init(file: String, authors: [String]) {
            self.file = file
            self.authors = authors
        }
    }

    /// In file-name order.
    package let photos: [Photo]

    /// The JPEGs in `folder` with their authors from `copyright` (a Debian machine-readable
    /// copyright file whose `Files:` paths start with the folder's name); nil when the folder
    /// holds none (the package is not installed).
    package init?(folder: String = Self.packageFolder, copyright: String = Self.packageCopyright) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.lowercased().hasSuffix(".jpg") && !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else { return nil }
        let text = (try? String(contentsOfFile: copyright, encoding: .utf8)) ?? ""
        let authors = Self.authors(inCopyright: text)
        let prefix = URL(fileURLWithPath: folder).lastPathComponent + "/"
        photos = names.map { Photo(file: folder + "/" + $0, authors: authors[prefix + $0] ?? []) }
    }

    /// The holders each file path of a machine-readable copyright file (DEP-5) names: its
    /// `Copyright:` lines without years, e-mail addresses, remarks in parentheses and quotes.
    package static func authors(inCopyright text: String) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for paragraph in text.components(separatedBy: "\n\n") {
            let fields = Self.fields(of: paragraph)
            guard let files = fields["files"], let holders = fields["copyright"] else { continue }
            let names = holders.compactMap(Self.holder)
            for file in files.flatMap({ $0.split(separator: " ") }) { result[String(file)] = names }
        }
        return result
    }

    /// A paragraph's fields by lower-cased name, each a list of its lines (the first line's
    /// value and its continuation lines), trimmed.
    package static func fields(of paragraph: String) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        var current: String?
        for line in paragraph.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.first == " " || line.first == "\t" {
                if let current { fields[current, default: []].append(line.trimmingCharacters(in: .whitespaces)) }
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                current = name
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                fields[name] = value.isEmpty ? [] : [value]
            }
        }
        return fields
    }

    /// `2008, Ann Lee <ann@example.org>` is `Ann Lee`; nil when nothing of a name is left.
    package static func holder(_ line: String) -> String? {
        var text = Substring(line)
        // Years first: `2008, `, `2005-2008 `, `2007,2008, `.
        while let first = text.first, first.isNumber || first == "," || first == "-" || first == " " { text = text.dropFirst() }
        var name = ""
        var skipUntil: Character?
        for c in text {
            if let end = skipUntil {
                if c == end { skipUntil = nil }
                continue
            }
            switch c {
            case "<": skipUntil = ">"
            case "(": skipUntil = ")"
            case "\"": continue
            default: name.append(c)
            }
        }
        // Stray marks after the address (one entry has a lone acute accent).
        let trimmed = name.trimmingCharacters(in: CharacterSet.whitespaces.union(CharacterSet(charactersIn: "´`',;")))
        let collapsed = trimmed.split(separator: " ").joined(separator: " ")
        return collapsed.isEmpty ? nil : collapsed
    }
}
