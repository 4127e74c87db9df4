import Foundation
import Testing
import TestSupport
@testable import Thumbd
import ThumbdProtocol

/// The reference tables of docs/ are rendered from the code, so they cannot drift: each test
/// renders one table and compares it with the text between its markers in the page,
/// `<!-- generated: NAME -->` and `<!-- end generated -->`. With THUMBD_WRITE_DOCS=1 (`make
/// docs`) a test writes the table into the page instead of failing.
///
/// Where each column comes from:
/// - configuration keys: the key, what it accepts, its default (a `ThumbdConfig()` read
///   through the key) and its variable from `ConfigKey.all`; what it does from the comment
///   above the key in config/thumbd.yaml, the one place a key is described;
/// - URL parameters: the rows of `ThumbnailOptions.parameters`, each with its summary.
@Suite struct ReferenceDocsTests {
    static let root = PackageRoot.url
    static let writing = ProcessInfo.processInfo.environment["THUMBD_WRITE_DOCS"] == "1"

    @Test func configurationKeys() throws {
        let yaml = try String(contentsOf: Self.root.appendingPathComponent("config/thumbd.yaml"), encoding: .utf8)
        let descriptions = ReferenceTables.descriptions(yaml: yaml)
        for key in ConfigKey.all {
            #expect(!(descriptions[key.path] ?? "").isEmpty, "config/thumbd.yaml has no comment right above \(key.path)")
        }
        try Self.check("docs/configuration.md", table: "config-keys", ReferenceTables.configKeys(descriptions: descriptions))
    }

    @Test func urlParameters() throws {
        for parameter in ThumbnailOptions.parameters {
            let cells = [parameter.summary.values, parameter.summary.defaultValue, parameter.summary.effect]
            #expect(cells.allSatisfy { !$0.isEmpty && !$0.contains("|") && !$0.contains("\n") }, "\(parameter.name)'s summary must fill one table cell each")
        }
        try Self.check("docs/thumbnails.md", table: "url-parameters", ReferenceTables.urlParameters())
    }

    /// The default the reference shows, applied as a value, is the default again: what the
    /// page says is what a file saying it would do.
    @Test func shownDefaultsReadBack() {
        for key in ConfigKey.all {
            let shown = key.show(ThumbdConfig())
            var config = ThumbdConfig()
            let accepted = key.apply(&config, shown)
            #expect(accepted, "\(key.path) refuses its own default '\(shown)'")
            #expect(config == ThumbdConfig(), "\(key.path): '\(shown)' does not read back as its default")
        }
    }

    /// Compares `rendered` with the page's text between the table's markers, or writes it there.
    static func check(_ page: String, table: String, _ rendered: String) throws {
        let url = root.appendingPathComponent(page)
        let text = try String(contentsOf: url, encoding: .utf8)
        let begin = "<!-- generated: \(table) -->\n", end = "<!-- end generated -->"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else {
            Issue.record("\(page) lacks the markers \(begin.dropLast()) and \(end)")
            return
        }
        let current = String(text[start.upperBound..<stop.lowerBound])
        guard current != rendered else { return }
        if writing {
            var updated = text
            updated.replaceSubrange(start.upperBound..<stop.lowerBound, with: rendered)
            try updated.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let have = current.split(separator: "\n", omittingEmptySubsequences: false)
        let want = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        let line = zip(have, want).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset ?? min(have.count, want.count)
        let expected = line < want.count ? String(want[line]) : "(nothing)"
        let found = line < have.count ? String(have[line]) : "(nothing)"
        Issue.record("""
            \(page): the \(table) table is not what the code renders (run `make docs`). \
            Row \(line + 1) should be \(expected) but is \(found)
            """)
    }
}

/// The tables, as Markdown.
enum ReferenceTables {
    static func configKeys(descriptions: [String: String]) -> String {
        var lines = ["| key | accepts | default | environment variable | what it does |", "|---|---|---|---|---|"]
        for key in ConfigKey.all {
            let shown = key.defaultText
            let value = key.machineDefault != nil ? shown : shown.isEmpty ? "empty" : "`\(shown)`"
            lines.append("| `\(key.path)` | \(cell(key.allowed)) | \(value) | `\(key.environmentName)` | \(cell(descriptions[key.path] ?? "")) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func urlParameters() -> String {
        var lines = ["| parameter | values | default | what it does |", "|---|---|---|---|"]
        for parameter in ThumbnailOptions.parameters {
            let summary = parameter.summary
            lines.append("| `\(parameter.name)` | \(summary.values) | \(summary.defaultValue) | \(summary.effect) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Plain text in a table cell: a `|` would end the cell and a `*` could start emphasis.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "*", with: "\\*")
    }

    /// The comment lines right above each key of config/thumbd.yaml (a commented-out key such
    /// as `# workers: 2` counts as a key), joined into one line, by key path. A blank line or
    /// another key ends a comment.
    static func descriptions(yaml: String) -> [String: String] {
        var result: [String: String] = [:]
        var enclosing: [String] = []  // the mappings a line is in, by depth
        var comment: [String] = []
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let body = line.dropFirst(indent)
            if body.isEmpty {
                comment = []
                continue
            }
            let commented = body.hasPrefix("# ")
            let content = commented ? body.dropFirst(2) : body
            if let name = keyName(content) {
                enclosing = Array(enclosing.prefix(indent / 2))
                let path = (enclosing + [name]).joined(separator: ".")
                if !comment.isEmpty { result[path] = comment.joined(separator: " ") }
                if !commented { enclosing.append(name) }
                comment = []
            } else if commented {
                comment.append(String(content))
            } else {
                comment = []
            }
        }
        return result
    }

    /// `name` of a line `name:` or `name: value`, where a name is lower case, digits and `_`.
    static func keyName(_ text: Substring) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let name = text[..<colon], rest = text[text.index(after: colon)...]
        guard let first = name.first, first >= "a", first <= "z",
              name.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }),
              rest.isEmpty || rest.hasPrefix(" ") else { return nil }
        return String(name)
    }
}
