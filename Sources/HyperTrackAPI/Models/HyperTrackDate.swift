import Foundation

/// ISO-8601 timestamps as HyperTrack writes them.
///
/// Accepts a date and time with any number of fractional digits and `Z`, `±hh:mm`, `±hhmm` or `±hh` (a missing zone
/// means UTC), e.g. `2020-04-20T00:57:33.484361Z`, `2021-02-05T11:53:10.544Z`, `2021-02-05T00:00:00+00:00`.
/// Formats in UTC. Pure arithmetic: no formatter objects, safe from any thread.
public enum HyperTrackDate {
    /// Parses a timestamp; `nil` when the text is not one of the accepted forms.
    /// - Parameter text: The timestamp.
    public static func parse(_ text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
            let day = scanner.digits(2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
            let hour = scanner.digits(2), scanner.skip(":"), let minute = scanner.digits(2), scanner.skip(":"),
            let second = scanner.digits(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        var fraction = 0.0
        if scanner.skip(".") || scanner.skip(",") {
            var scale = 0.1
            var count = 0
            while let digit = scanner.digit() {
                fraction += Double(digit) * scale
                scale /= 10
                count += 1
            }
            guard count > 0 else { return nil }
        }
        var offset = 0
        if scanner.skip("Z") || scanner.skip("z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.digits(2), hours < 24 else { return nil }
            _ = scanner.skip(":")
            let minutes = scanner.digits(2) ?? 0
            guard minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.atEnd else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Formats a date in UTC: `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`, or with 6 fractional digits when the date has
    /// sub-millisecond precision (so parsing the text gives the date back).
    /// - Parameter date: The date.
    public static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let totalSeconds = Int(micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000)
        let micro = Int(micros - Int64(totalSeconds) * 1_000_000)
        let days = totalSeconds >= 0 ? totalSeconds / 86_400 : (totalSeconds - 86_399) / 86_400
        let secondOfDay = totalSeconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let fraction = micro % 1000 == 0 ? pad(micro / 1000, 3) : pad(micro, 6)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):"
            + "\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)).\(fraction)Z"
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { self.index == self.bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: character) else { return false }
            self.index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard self.index < self.bytes.count, (48...57).contains(self.bytes[self.index]) else { return nil }
            defer { self.index += 1 }
            return Int(self.bytes[self.index] - 48)
        }

        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = self.digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int? {
            if self.skip("+") { return 1 }
            if self.skip("-") { return -1 }
            return nil
        }
    }
}
