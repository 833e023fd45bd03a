import Logging
import Metrics
import Prometheus

/// The executable's one-time backend setup (libraries never do this).
enum Bootstrap {
    /// Logs go to standard error at the configured level, as text or (`LOG_FORMAT=json`) one JSON object per line.
    static func logging(_ configuration: Configuration) {
        let level = configuration.logLevel
        let format = configuration.logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }

    /// Bootstraps swift-metrics with Prometheus (once per process) and returns the registry `/metrics` renders.
    /// Metric and label names are made Prometheus-safe: `trigger.invocations` becomes `trigger_invocations`.
    static func metrics() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = { name, labels in
            (PrometheusName.sanitize(name), labels.map { (PrometheusName.sanitize($0.0), $0.1) })
        }
        // Trigger lag is alerted on at tens of seconds and can reach minutes when workers are behind.
        factory.durationHistogramBuckets["trigger_lag"] = [
            .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(300),
            .seconds(900),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }
}

/// Prometheus names: `[a-zA-Z_:][a-zA-Z0-9_:]*`.
enum PrometheusName {
    static func sanitize(_ name: String) -> String {
        var result = String(
            name.unicodeScalars.map { scalar -> Character in
                let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == ":")
                return allowed ? Character(scalar) : "_"
            }
        )
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
        return result
    }
}
