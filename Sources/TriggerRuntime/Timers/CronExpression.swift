import Foundation

/// A five-field cron expression (`minute hour day-of-month month day-of-week`), evaluated in UTC.
///
/// Each field is `*`, a number, a range `a-b`, any of those with a step (`*/5`, `10-40/10`), or a comma-separated
/// list of them. Day of week is 0–7 (0 and 7 are Sunday). As in Vixie cron, when both day fields are restricted a
/// day matches if either matches; names (`MON`, `JAN`) and the `@hourly` shortcuts are not accepted. UTC because a
/// worker fleet spans machines whose local zones may differ, and a schedule must mean one instant for all of them.
struct CronExpression: Sendable, Hashable {
    let minutes: Set<Int>
    let hours: Set<Int>
    let daysOfMonth: Set<Int>
    let months: Set<Int>
    let daysOfWeek: Set<Int>
    /// Whether the field was `*` (Vixie cron's day rule needs to know).
    let anyDayOfMonth: Bool
    let anyDayOfWeek: Bool

    /// Parses `expression`; throws `invalidRegistration` saying which field is wrong.
    init(_ expression: String) throws {
        let fields = expression.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw TriggerRuntimeError(
                .invalidRegistration, "cron expression \"\(expression)\" has \(fields.count) fields, expected 5")
        }
        func parse(_ index: Int, _ name: String, _ range: ClosedRange<Int>) throws -> Set<Int> {
            do {
                return try Self.field(fields[index], range: range)
            } catch let problem as FieldProblem {
                throw TriggerRuntimeError(
                    .invalidRegistration,
                    "cron expression \"\(expression)\": \(name) field \"\(fields[index])\": \(problem.reason)")
            }
        }
        self.minutes = try parse(0, "minute", 0...59)
        self.hours = try parse(1, "hour", 0...23)
        self.daysOfMonth = try parse(2, "day-of-month", 1...31)
        self.months = try parse(3, "month", 1...12)
        self.daysOfWeek = Set(try parse(4, "day-of-week", 0...7).map { $0 % 7 })
        self.anyDayOfMonth = fields[2].hasPrefix("*")
        self.anyDayOfWeek = fields[4].hasPrefix("*")
    }

    private struct FieldProblem: Error {
        var reason: String
    }

    private static func field(_ text: String, range: ClosedRange<Int>) throws -> Set<Int> {
        var values = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, let base = pieces.first, !base.isEmpty else {
                throw FieldProblem(reason: "malformed item \"\(part)\"")
            }
            var step = 1
            if pieces.count == 2 {
                guard let value = Int(pieces[1]), value > 0 else {
                    throw FieldProblem(reason: "step \"\(pieces[1])\" is not a positive number")
                }
                step = value
            }
            let bounds: ClosedRange<Int>
            if base == "*" {
                bounds = range
            } else {
                let ends = base.split(separator: "-", omittingEmptySubsequences: false)
                guard ends.count <= 2, let low = Int(ends[0]), let high = Int(ends.count == 2 ? ends[1] : ends[0])
                else { throw FieldProblem(reason: "\"\(base)\" is not a number or a range") }
                guard range.contains(low), range.contains(high) else {
                    throw FieldProblem(reason: "\(base) is outside \(range.lowerBound)-\(range.upperBound)")
                }
                guard low <= high else { throw FieldProblem(reason: "range \(base) is reversed") }
                // `5/15` means from 5 to the end in steps of 15, as in Vixie cron.
                bounds = low...(ends.count == 1 && pieces.count == 2 ? range.upperBound : high)
            }
            values.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
        }
        return values
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private func dayMatches(day: Int, weekday: Int) -> Bool {
        let dayOfMonth = self.daysOfMonth.contains(day)
        let dayOfWeek = self.daysOfWeek.contains(weekday)
        if self.anyDayOfMonth || self.anyDayOfWeek { return dayOfMonth && dayOfWeek }
        return dayOfMonth || dayOfWeek
    }

    /// The first matching minute strictly after `date`, or `nil` if none within eight years (`0 0 30 2 *`).
    func next(after date: Date) -> Date? {
        let calendar = Self.calendar
        var parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        parts.second = 0
        guard var candidate = calendar.date(from: parts)?.addingTimeInterval(60) else { return nil }
        let limit = date.addingTimeInterval(8 * 366 * 86_400)
        while candidate <= limit {
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: candidate)
            guard let year = c.year, let month = c.month, let day = c.day, let hour = c.hour, let minute = c.minute,
                let weekday = c.weekday
            else { return nil }
            if !self.months.contains(month) {
                let next = month == 12 ? DateComponents(year: year + 1, month: 1, day: 1)
                    : DateComponents(year: year, month: month + 1, day: 1)
                guard let date = calendar.date(from: next) else { return nil }
                candidate = date
            } else if !self.dayMatches(day: day, weekday: weekday - 1) {
                guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)) else {
                    return nil
                }
                candidate = date.addingTimeInterval(86_400)
            } else if !self.hours.contains(hour) {
                candidate = candidate.addingTimeInterval(Double(60 - minute) * 60)
            } else if !self.minutes.contains(minute) {
                candidate = candidate.addingTimeInterval(60)
            } else {
                return candidate
            }
        }
        return nil
    }
}
