import Foundation

/// The command line: the grid, the phone, the link and the scroll script.
struct ScrollOptions: Sendable {
    enum UsageError: Error, CustomStringConvertible {
        case help
        case invalid(String)

        var description: String {
            switch self {
            case .help: "help requested"
            case .invalid(let message): message
            }
        }
    }

    var server: URL?
    var columns = 3
    var cellPoints = 120.0
    var scale = 3.0
    /// A phone's screen height (844 pt: an iPhone 12 to 14).
    var viewportPoints = 844.0
    var bandwidthMbit = 20.0
    var latencyMs = 60.0
    var scrollSpeed = 1000.0
    var flingSpeed = 6000.0
    var pauseSeconds = 1.5
    /// How long a reopened full-screen image is waited for; the first opens wait half of it.
    var fullScreenTimeout = 6.0
    var timeScale = 1.0
    var strategies: [StrategyKind] = StrategyKind.allCases
    var limit: Int?
    var jsonOnly = false

    var bytesPerSecond: Double { bandwidthMbit * 1_000_000 / 8 }

    static let usage = """
        usage: thumbd-scroll --server http://127.0.0.1:PORT [options]

        Lists the server's library (/v1/images) and scrolls a simulated phone grid over it on a
        modelled link, once per strategy, each from a cold start; prints a table and a final
        line `RESULT {json}`.

          --server URL              thumbd to talk to (required)
          --columns N               grid columns (3)
          --cell-points P           cell side in points (120)
          --scale S                 screen scale, 1...4 (3)
          --viewport-points P       viewport height in points (844)
          --bandwidth-mbit M        link bandwidth, shared by all transfers (20)
          --latency-ms L            latency before each request (60)
          --scroll-speed P          points per second when scrolling (1000)
          --fling-speed P           points per second of the fling back to the top (6000)
          --pause-seconds S         each pause of the script (1.5)
          --full-screen-timeout S   wait for a reopened full-screen image; first opens wait half (6)
          --time-scale X            simulated seconds per wall second (1)
          --strategies LIST         of naive,kit-originals,kit (all; always run in that order)
          --limit N                 at most N images
          --json-only               print only the RESULT line
        """

    private static let flags: Set<String> = ["--json-only", "--help", "-h"]
    private static let valued: Set<String> = [
        "--server", "--columns", "--cell-points", "--scale", "--viewport-points", "--bandwidth-mbit", "--latency-ms",
        "--scroll-speed", "--fling-speed", "--pause-seconds", "--full-screen-timeout", "--time-scale", "--strategies", "--limit",
    ]

    static func parse(_ arguments: [String]) throws(UsageError) -> ScrollOptions {
        var options = ScrollOptions()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if flags.contains(name) {
                if name == "--json-only" { options.jsonOnly = true } else { throw UsageError.help }
                continue
            }
            guard valued.contains(name) else { throw UsageError.invalid("unknown option \(name)") }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if let next = rest.popFirst() {
                value = next
            } else {
                throw UsageError.invalid("\(name) needs a value")
            }
            switch name {
            case "--server":
                guard let url = URL(string: value), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                    throw UsageError.invalid("--server wants an http URL such as http://127.0.0.1:8080, got '\(value)'")
                }
                options.server = url
            case "--columns": options.columns = try integer(value, name, in: 1...50)
            case "--cell-points": options.cellPoints = try number(value, name, in: 10...2000)
            case "--scale": options.scale = try number(value, name, in: 1...4)
            case "--viewport-points": options.viewportPoints = try number(value, name, in: 10...20_000)
            case "--bandwidth-mbit": options.bandwidthMbit = try number(value, name, in: 0.01...100_000)
            case "--latency-ms": options.latencyMs = try number(value, name, in: 0...60_000)
            case "--scroll-speed": options.scrollSpeed = try number(value, name, in: 1...1_000_000)
            case "--fling-speed": options.flingSpeed = try number(value, name, in: 1...1_000_000)
            case "--pause-seconds": options.pauseSeconds = try number(value, name, in: 0...600)
            case "--full-screen-timeout": options.fullScreenTimeout = try number(value, name, in: 0.01...600)
            case "--time-scale": options.timeScale = try number(value, name, in: 0.01...100)
            case "--strategies": options.strategies = try strategies(value)
            case "--limit": options.limit = try integer(value, name, in: 1...Int.max)
            default: throw UsageError.invalid("unknown option \(name)")
            }
        }
        guard options.server != nil else { throw UsageError.invalid("--server is required") }
        return options
    }

    private static func integer(_ text: String, _ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError.invalid("\(name) wants an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    private static func number(_ text: String, _ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw UsageError.invalid("\(name) wants a number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// The named strategies, in the canonical order: originals first, so the server's thumbnail
    /// caches are still cold when `kit` runs (its figures are then a first visit's).
    private static func strategies(_ text: String) throws(UsageError) -> [StrategyKind] {
        var chosen: Set<StrategyKind> = []
        for name in text.split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let kind = StrategyKind(rawValue: trimmed) else {
                throw UsageError.invalid("unknown strategy '\(trimmed)' (naive, kit-originals, kit)")
            }
            chosen.insert(kind)
        }
        guard !chosen.isEmpty else { throw UsageError.invalid("--strategies names none") }
        return StrategyKind.allCases.filter { chosen.contains($0) }
    }
}
