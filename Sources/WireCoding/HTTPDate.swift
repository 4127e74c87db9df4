/// HTTP dates (RFC 9110 §5.6.7), as whole seconds since the Unix epoch. Pure arithmetic
/// (no C library, no Foundation), so the server's HTTP core and the client share it.
public enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ seconds: Int) -> String {
        let (dayNumber, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = civil(fromDays: dayNumber)
        let weekday = weekdays[dayNumber.floorDivided(by: 7).remainder]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// Parses IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must accept.
    public static func parse<S: StringProtocol>(_ text: S) -> Int? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
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

    private static func make<S: StringProtocol>(day: S, month: S, year: S, time: S, twoDigitYear: Bool) -> Int? {
        guard let m = months.firstIndex(where: { $0 == month }),
              day.count <= 2, let d = Int(day), (1...31).contains(d),
              year.allSatisfy({ $0.isASCII && $0.isNumber }), var y = Int(year)
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
        // Like timegm: a day past the month's end rolls into the next month.
        return (days(fromCivil: y, month: m + 1, day: 1) + d - 1) * 86_400 + hh * 3600 + mm * 60 + ss
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func days(fromCivil year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number (the inverse of `days(fromCivil:month:day:)`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Int {
    /// Quotient and remainder rounded toward minus infinity (so dates before 1970 work).
    fileprivate func floorDivided(by divisor: Int) -> (quotient: Int, remainder: Int) {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
