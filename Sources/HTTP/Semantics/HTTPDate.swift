#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7), as whole seconds since the Unix epoch.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var tm = tm()
        gmtime_r(&t, &tm)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(tm.tm_wday)]), \(two(tm.tm_mday)) \(months[Int(tm.tm_mon)]) \(tm.tm_year + 1900) "
            + "\(two(tm.tm_hour)):\(two(tm.tm_min)):\(two(tm.tm_sec)) GMT"
    }

    /// Parses IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must accept.
    public static func parse<S: StringProtocol>(_ text: S) -> Int? {
        let parts = String(text).split(separator: " ", omittingEmptySubsequences: true)
        if parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT" {
            // Sun, 06 Nov 1994 08:49:37 GMT
            return make(day: parts[1], month: parts[2], year: parts[3], time: parts[4], twoDigitYear: false)
        }
        if parts.count == 4, parts[0].hasSuffix(","), parts[3] == "GMT" {
            // Sunday, 06-Nov-94 08:49:37 GMT
            let dmy = parts[1].split(separator: "-")
            guard dmy.count == 3 else { return nil }
            return make(day: dmy[0], month: dmy[1], year: dmy[2], time: parts[2], twoDigitYear: true)
        }
        if parts.count == 5, !parts[0].hasSuffix(",") {
            // Sun Nov  6 08:49:37 1994
            return make(day: parts[2], month: parts[1], year: parts[4], time: parts[3], twoDigitYear: false)
        }
        return nil
    }

    private static func make(day: Substring, month: Substring, year: Substring, time: Substring, twoDigitYear: Bool) -> Int? {
        guard let m = months.firstIndex(of: String(month)),
              day.count <= 2, let d = Int(day), (1...31).contains(d),
              var y = Int(year), year.allSatisfy(\.isASCII)
        else { return nil }
        if twoDigitYear {
            guard year.count == 2 else { return nil }
            y += y < 70 ? 2000 : 1900
        } else if year.count != 4 {
            return nil
        }
        let hms = time.split(separator: ":")
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }),
              let hh = Int(hms[0]), let mm = Int(hms[1]), let ss = Int(hms[2]),
              (0...23).contains(hh), (0...59).contains(mm), (0...60).contains(ss)
        else { return nil }
        var tm = tm()
        tm.tm_year = Int32(y - 1900)
        tm.tm_mon = Int32(m)
        tm.tm_mday = Int32(d)
        tm.tm_hour = Int32(hh)
        tm.tm_min = Int32(mm)
        tm.tm_sec = Int32(ss)
        return Int(timegm(&tm))
    }
}
