import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import TriggerRuntime

/// The process's metrics in Prometheus terms: the factory the executable bootstraps swift-metrics with, and the
/// `/metrics` response rendered from the same registry. The library never bootstraps anything itself.
public enum PrometheusExposition {
    /// A swift-prometheus factory on `registry` with Prometheus-safe names (`trigger.invocations` becomes
    /// `trigger_invocations`) and `trigger_lag` buckets from 10 ms to 15 min.
    ///
    /// ```swift
    /// let registry = PrometheusCollectorRegistry()
    /// MetricsSystem.bootstrap(PrometheusExposition.factory(registry: registry))   // the executable, once
    /// ```
    /// - Parameter registry: Where the metrics are kept; hand the same one to the HTTP application.
    public static func factory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (Self.sanitize(name), labels.map { (Self.sanitize($0.0), $0.1) })
        }
        // Trigger lag is alerted on at tens of seconds and can reach minutes when workers are behind.
        factory.durationHistogramBuckets["trigger_lag"] = [
            .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(300),
            .seconds(900),
        ]
        // A delivery's stages and the event hub's passes take from a millisecond (decoding, an idle pass) to
        // hundreds (PostgreSQL under load); the acknowledgement is asked in tens.
        let milliseconds: [Duration] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        factory.durationHistogramBuckets["webhook_intake_duration"] = milliseconds
        factory.durationHistogramBuckets["order_events_hub_duration"] = milliseconds
        return factory
    }

    /// A Prometheus name: `[a-zA-Z_:][a-zA-Z0-9_:]*`, other characters replaced by `_`.
    public static func sanitize(_ name: String) -> String {
        var result = String(
            name.unicodeScalars.map { scalar -> Character in
                let allowed =
                    scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                        || scalar == ":")
                return allowed ? Character(scalar) : "_"
            }
        )
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
        return result
    }

    /// What each metric the process records means, for its `# HELP` line (swift-metrics' API has no help text, so
    /// the exposition adds it; a metric missing here gets a line naming its source, and `MetricsEndpointTests`
    /// fails until one is written).
    static let help: [String: String] = [
        "trigger_captured": "Deliveries this worker claimed for their first attempt, per function.",
        "trigger_invocations": "Function invocations this worker finished, per function and outcome.",
        "trigger_invocation_duration": "Handler run time in seconds, its transaction included, per function.",
        "trigger_lag": "Seconds from the writing transaction's commit (a timer's or tick's due time) to the handler's start, per function.",
        "trigger_timers_scheduled": "Timers this process scheduled, per function (a rolled-back scheduling counts too).",
        "trigger_timers_fired": "Timers this worker ran, per function.",
        "trigger_timers_pending": "Timers waiting for their due time, as this worker last saw them.",
        "trigger_schedule_ticks": "Schedule ticks this worker ran, per function.",
        "hb_requests": "HTTP requests served, per route, method and status.",
        "hb_request_errors": "HTTP requests that failed with an error, per route and method.",
        "http_server_request_duration": "HTTP request duration in seconds, per route, method and status.",
        "http_server_active_requests": "HTTP requests being served now.",
        "webhook_intake_duration": "Seconds an accepted webhook delivery spent per stage: read (its body), decode (authentication, and the events unless WEBHOOKS_APPLY=worker), store (PostgreSQL).",
        "order_events_hub_duration": "Seconds of each pass of the order event hub per stage: sequence (positions for committed events), read (the new events read and handed to the streams); and pause (between two paced passes, as it lasted).",
    ]

    /// The database's delivery gauges: name, help, and the value of one function's backlog.
    static let backlogGauges: [(name: String, help: String, value: @Sendable (DeliveryAdmin.Backlog) -> Double)] = [
        (
            "trigger_deliveries_pending",
            "Deliveries waiting to run (due or retrying), per function; read from the database.", { Double($0.pending) }
        ),
        (
            "trigger_deliveries_running", "Deliveries a worker holds a lease on, per function; read from the database.",
            { Double($0.running) }
        ),
        (
            "trigger_deliveries_dead",
            "Dead-lettered deliveries awaiting a replay, per function; read from the database, so it survives restarts.",
            { Double($0.dead) }
        ),
        (
            "trigger_deliveries_oldest_pending_age_seconds",
            "Age of the oldest pending or running delivery, per function (0 without one).", { $0.oldestPendingAge }
        ),
    ]

    /// `/metrics`: the registry in Prometheus text exposition format 0.0.4 with a `# HELP` line before every
    /// `# TYPE`, followed by the delivery gauges read from the database through `admin` (and
    /// `trigger_deliveries_up`, 0 when that read failed, so a dead database does not look like an empty backlog).
    static func response(_ registry: PrometheusCollectorRegistry, admin: DeliveryAdmin?) async -> Response {
        var text = Self.withHelp(String(decoding: registry.emitToBuffer(), as: UTF8.self))
        if let admin {
            text += await Self.backlogText(admin)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// `exposition` with `# HELP name …` inserted before each `# TYPE name …` that has none.
    static func withHelp(_ exposition: String) -> String {
        var lines: [Substring] = []
        for line in exposition.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# TYPE "), let name = line.split(separator: " ").dropFirst(2).first,
                lines.last?.hasPrefix("# HELP \(name) ") != true
            {
                lines.append("# HELP \(name) \(Self.help[String(name)] ?? "\(name), recorded through swift-metrics.")")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    static func backlogText(_ admin: DeliveryAdmin) async -> String {
        var text = "# HELP trigger_deliveries_up Whether the delivery gauges below could be read from the database.\n"
        text += "# TYPE trigger_deliveries_up gauge\n"
        let backlog: [DeliveryAdmin.Backlog]
        do {
            backlog = try await admin.backlog()
        } catch {
            // The scrape still answers (the process's own metrics are valid); the cause goes to the log.
            admin.logger.warning("the delivery gauges could not be read", metadata: ["error": "\(String(reflecting: error))"])
            return text + "trigger_deliveries_up 0\n"
        }
        text += "trigger_deliveries_up 1\n"
        for gauge in Self.backlogGauges {
            text += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n"
            for row in backlog {
                text += "\(gauge.name){function=\"\(Self.escapeLabel(row.function))\"} \(gauge.value(row))\n"
            }
        }
        return text
    }

    /// A label value as the text format requires: backslash, double quote and newline escaped.
    static func escapeLabel(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
