/// Parsers for configuration values, shared by the file, the environment and the flags.
/// Pure; each returns nil for text it does not accept.
import ThumbdCore

public enum ConfigValue {
    /// Bytes: `1048576`, `512KiB`, `256MiB`, `2GiB`, `64KB`, `1MB` (KB/MB/GB are powers of 1000).
    static func size(_ text: String) -> Int? {
        let t = text.trimmedValue()
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40),
                                       ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000), ("TB", 1_000_000_000_000), ("B", 1)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            guard let n = number(Substring(t.dropLast(suffix.count).trimmedValue())) else { return nil }
            let value = n * Double(factor)
            return value <= Double(Int.max / 2) ? Int(value.rounded()) : nil
        }
        return number(Substring(t)).flatMap { $0 == $0.rounded() && $0 <= Double(Int.max / 2) ? Int($0) : nil }
    }

    /// Seconds: `10`, `10s`, `500ms`, `2m`, `1h`, `1.5s`.
    static func duration(_ text: String) -> Double? {
        let t = text.trimmedValue()
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            return number(Substring(t.dropLast(suffix.count).trimmedValue())).map { $0 * factor }
        }
        return number(Substring(t))
    }

    static func bool(_ text: String) -> Bool? {
        switch text.trimmedValue().lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    static func integer(_ text: String) -> Int? {
        let t = text.trimmedValue()
        guard !t.isEmpty, t.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) || (t.first == "-" && t.dropFirst().utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) && t.count > 1)
        else { return nil }
        return Int(t)
    }

    /// When a signed URL expires (`thumbd sign --expires`), in Unix seconds: a duration from
    /// `now` (`1h`, `30m`, `3600`) or `@` and a time in Unix seconds.
    public static func expiry(_ text: String, now: Int) -> Int? {
        let t = text.trimmedValue()
        if t.hasPrefix("@") { return Int(t.dropFirst()).flatMap { $0 > 0 ? $0 : nil } }
        guard let seconds = duration(t), seconds > 0, seconds < 100 * 365 * 86400 else { return nil }
        return now + Int(seconds.rounded(.up))
    }

    /// A non-negative decimal number, such as 0.25.
    static func decimal(_ text: String) -> Double? { number(Substring(text.trimmedValue())) }

    /// A non-negative decimal number.
    private static func number(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }),
              text.utf8.filter({ $0 == 0x2E }).count <= 1, text.first != ".", text.last != "."
        else { return nil }
        return Double(text)
    }
}

extension StringProtocol {
    func trimmedValue() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" { s.removeLast() }
        return String(s)
    }

}
