import BackendServer
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
        MetricsSystem.bootstrap(PrometheusExposition.factory(registry: registry))
        return registry
    }
}
