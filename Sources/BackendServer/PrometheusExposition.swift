import Hummingbird
import NIOCore
import Prometheus

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
        return factory
    }

    /// A Prometheus name: `[a-zA-Z_:][a-zA-Z0-9_:]*`, other characters replaced by `_`.
    public static func sanitize(_ name: String) -> String {
        var result = String(
            name.unicodeScalars.map { scalar -> Character in
                let allowed =
                    scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == ":")
                return allowed ? Character(scalar) : "_"
            }
        )
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { result = "_" + result }
        return result
    }

    /// The registry in Prometheus text exposition format 0.0.4.
    static func response(_ registry: PrometheusCollectorRegistry) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
        )
    }
}
