/// A fault to inject in-process, the typed twin of `POST /_emulator/faults` (see the README for the semantics).
///
/// ```swift
/// try await emulator.addFault(.httpError(status: 503, method: "POST", path: "/trips/*/complete", count: 2))
/// try await emulator.addFault(.dropWebhooks(eventType: "trip", count: 1))
/// ```
public struct Fault: Sendable {
    let json: JSON

    private static func make(
        _ kind: String, method: String? = nil, path: String? = nil, rate: Double, count: Int?,
        extra: [String: JSON] = [:]
    ) -> Fault {
        var fields: [String: JSON] = ["kind": .string(kind), "rate": .number(rate)]
        if let method { fields["method"] = .string(method) }
        if let path { fields["path"] = .string(path) }
        if let count { fields["count"] = .number(Double(count)) }
        fields.merge(extra) { _, new in new }
        return Fault(json: .object(fields))
    }

    /// Matching API requests answer `status` with a problem body and change nothing.
    /// - Parameters:
    ///   - status: 400...599.
    ///   - method: HTTP method to match; `nil` matches any.
    ///   - path: pattern; `*` matches one segment, `**` any number.
    ///   - rate: probability in [0, 1] that a matching request fails (drawn from the seed).
    ///   - count: how many times it may fire; `nil` is unlimited.
    public static func httpError(
        status: Int = 500, method: String? = nil, path: String = "/**", rate: Double = 1, count: Int? = nil
    ) -> Fault {
        make("http_error", method: method, path: path, rate: rate, count: count, extra: ["status": .number(Double(status))])
    }

    /// Matching API requests answer 429 with `Retry-After: retryAfter`.
    /// - Parameters: see ``httpError(status:method:path:rate:count:)``; `retryAfter` is in seconds.
    public static func rateLimit(
        retryAfter: Int = 1, method: String? = nil, path: String = "/**", rate: Double = 1, count: Int? = nil
    ) -> Fault {
        make(
            "rate_limit", method: method, path: path, rate: rate, count: count,
            extra: ["retry_after": .number(Double(retryAfter))])
    }

    /// Matching API requests are answered normally after `milliseconds` of real time.
    /// - Parameters: see ``httpError(status:method:path:rate:count:)``.
    public static func latency(
        milliseconds: Int, method: String? = nil, path: String = "/**", rate: Double = 1, count: Int? = nil
    ) -> Fault {
        make(
            "latency", method: method, path: path, rate: rate, count: count,
            extra: ["latency_ms": .number(Double(milliseconds))])
    }

    /// Deliveries (containing an event of `eventType`, if given) are dropped: logged, never sent.
    public static func dropWebhooks(eventType: String? = nil, rate: Double = 1, count: Int? = nil) -> Fault {
        make("drop_webhooks", rate: rate, count: count, extra: eventType.map { ["event_type": .string($0)] } ?? [:])
    }

    /// Deliveries are sent twice with the same message id.
    public static func duplicateWebhooks(eventType: String? = nil, rate: Double = 1, count: Int? = nil) -> Fault {
        make(
            "duplicate_webhooks", rate: rate, count: count, extra: eventType.map { ["event_type": .string($0)] } ?? [:])
    }

    /// A delivery is held back and sent after the next one.
    public static func reorderWebhooks(eventType: String? = nil, rate: Double = 1, count: Int? = nil) -> Fault {
        make(
            "reorder_webhooks", rate: rate, count: count, extra: eventType.map { ["event_type": .string($0)] } ?? [:])
    }

    /// Deliveries are held for `seconds` of **emulated** time (like the retry interval, so a manual clock makes the
    /// delay exact), then sent.
    public static func delayWebhooks(
        seconds: Double = 60, eventType: String? = nil, rate: Double = 1, count: Int? = nil
    ) -> Fault {
        var extra: [String: JSON] = ["delay_seconds": .number(seconds)]
        if let eventType { extra["event_type"] = .string(eventType) }
        return make("delay_webhooks", rate: rate, count: count, extra: extra)
    }

    /// Deliveries are sent, then the same body (same signature) again under a new `x-amz-sns-message-id`,
    /// `seconds` of emulated time later (0: right after the original).
    public static func replayWebhooks(
        after seconds: Double = 0, eventType: String? = nil, rate: Double = 1, count: Int? = nil
    ) -> Fault {
        var extra: [String: JSON] = ["delay_seconds": .number(seconds)]
        if let eventType { extra["event_type"] = .string(eventType) }
        return make("replay_webhooks", rate: rate, count: count, extra: extra)
    }

    /// The same rule, firing only during the next `seconds` of **emulated** time (from when it is added), e.g.
    /// `.httpError(status: 503).lasting(seconds: 1800)` for a 30-minute outage on a manual clock.
    public func lasting(seconds: Double) -> Fault {
        guard case .object(var fields) = json else { return self }
        fields["for_seconds"] = .number(seconds)
        return Fault(json: .object(fields))
    }
}
