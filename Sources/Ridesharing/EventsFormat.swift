import Foundation
import TriggerRuntime

/// How `events` prints deliveries.
enum EventsFormat {
    static let header = "ID\tSTATUS\tATTEMPT\tFUNCTION\tOPERATION\tTABLE\tKEY\tCOMMITTED\tLAST ERROR"

    static func line(_ record: DeliveryRecord) -> String {
        let error = (record.lastError ?? "").replacingOccurrences(of: "\n", with: " ").prefix(80)
        return [
            "\(record.id)", record.status.rawValue, "\(record.attempt)", record.function.rawValue,
            record.operation.rawValue, record.table, record.documentKey, timestamp(record.committedAt), String(error),
        ].joined(separator: "\t")
    }

    static func detail(_ record: DeliveryRecord) -> String {
        var lines = [
            "id:         \(record.id)",
            "status:     \(record.status.rawValue)",
            "function:   \(record.function)",
            "change:     \(record.operation.rawValue) \(record.table) key=\(record.documentKey)",
            "committed:  \(timestamp(record.committedAt))",
            "attempts:   \(record.attempt)",
            (record.status == .done ? "done at:    " : "next run:   ") + timestamp(record.timestamp),
        ]
        if let worker = record.worker { lines.append("worker:     \(worker)") }
        if let error = record.lastError { lines.append("last error: \(error)") }
        if let before = record.before { lines.append("before:     \(before)") }
        if let after = record.after { lines.append("after:      \(after)") }
        return lines.joined(separator: "\n")
    }

    static let timerHeader = "FUNCTION\tDOCUMENT\tKEY\tDUE\tSCHEDULED\tPAYLOAD"

    static func line(_ timer: TimerRecord) -> String {
        [
            timer.function.rawValue, timer.documentKey, timer.key, timestamp(timer.dueAt), timestamp(timer.createdAt),
            String((timer.payload ?? "null").prefix(80)),
        ].joined(separator: "\t")
    }

    static let scheduleHeader = "FUNCTION\tSCHEDULE\tNEXT RUN\tLAST RUN"

    static func line(_ schedule: ScheduleRecord) -> String {
        [
            schedule.function.rawValue, schedule.schedule, timestamp(schedule.nextRunAt),
            schedule.lastRunAt.map(timestamp) ?? "never",
        ].joined(separator: "\t")
    }

    static func summary(_ summary: TimerSummary) -> String {
        "\(summary.pendingTimers) pending timers (\(summary.dueTimers) due), \(summary.schedules) schedules"
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
