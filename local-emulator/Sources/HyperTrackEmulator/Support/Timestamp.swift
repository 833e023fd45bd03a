import Foundation

/// ISO-8601 formatting and lenient parsing of the emulator's timestamps.
enum Timestamp {
    /// `2020-04-20T00:57:33.484Z` (UTC, milliseconds).
    static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func json(_ date: Date?) -> JSON { date.map { .string(string($0)) } ?? .null }

    /// Accepts 0–6 fractional digits and `Z` or `±hh:mm`.
    static func parse(_ string: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) { return date }
        return try? Date.ISO8601FormatStyle().parse(string)
    }

    /// The UTC day `YYYY-MM-DD` as the half-open interval it covers; `nil` when malformed.
    static func day(_ string: String) -> (Date, Date)? {
        let parts = string.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let start = calendar.date(from: components) else { return nil }
        return (start, start.addingTimeInterval(86_400))
    }
}
