import Foundation

/// Faults switched on through `POST /_emulator/faults`, drawn with a seeded generator so runs repeat.
struct FaultBook: Sendable {
    enum Kind: String, Codable, Sendable, CaseIterable {
        case httpError = "http_error"
        case rateLimit = "rate_limit"
        case latency
        case dropWebhooks = "drop_webhooks"
        case duplicateWebhooks = "duplicate_webhooks"
        case reorderWebhooks = "reorder_webhooks"
        case delayWebhooks = "delay_webhooks"
        case replayWebhooks = "replay_webhooks"

        var isWebhookFault: Bool {
            [.dropWebhooks, .duplicateWebhooks, .reorderWebhooks, .delayWebhooks, .replayWebhooks].contains(self)
        }
    }

    struct Rule: Sendable {
        var id: String
        var kind: Kind
        var method: String?
        var path: [Substring]
        var status: Int
        var rate: Double
        var remaining: Int?
        var retryAfter: Int
        var latencyMilliseconds: Int
        var eventType: String?
        /// Emulated seconds a delayed delivery waits, or after which a replay follows its original.
        var delaySeconds: Double = 0
        /// The emulated time after which the rule no longer fires (`for_seconds` after it was added).
        var expiresAt: Date?
        var fired = 0

        var json: JSON {
            [
                "fault_id": .string(id), "kind": .string(kind.rawValue), "method": method.json,
                "path": .string("/" + path.joined(separator: "/")), "status": .number(Double(status)),
                "rate": .number(rate), "remaining": remaining.map { .number(Double($0)) } ?? .null,
                "retry_after": .number(Double(retryAfter)), "latency_ms": .number(Double(latencyMilliseconds)),
                "event_type": eventType.json, "delay_seconds": .number(delaySeconds),
                "expires_at": expiresAt.map { Timestamp.json($0) } ?? .null, "fired": .number(Double(fired)),
            ]
        }
    }

    /// What a request meets: a delay, then maybe a failure instead of the real answer.
    struct HTTPOutcome: Sendable {
        var latencyMilliseconds = 0
        var problem: APIProblem?
    }

    private(set) var rules: [Rule] = []
    private var random: SplitMix64
    private var nextID = 1

    init(seed: UInt64) { self.random = SplitMix64(seed: seed ^ 0x4641_554C_5453) }

    /// Parses and adds a rule at emulated time `now`; see the README for the fields.
    mutating func add(_ body: JSON, now: Date) throws(APIProblem) -> JSON {
        guard let fields = body.objectValue else { throw .wrongContentFormat("The body must be a JSON object") }
        let known = [
            "kind", "method", "path", "status", "rate", "count", "retry_after", "latency_ms", "event_type",
            "delay_seconds", "for_seconds",
        ]
        for key in fields.keys where !known.contains(key) { throw .invalid(key, "unknown field") }
        guard let kind = fields["kind"]?.stringValue.flatMap(Kind.init(rawValue:)) else {
            throw .invalid("kind", "one of " + Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let method = fields["method"]?.stringValue?.uppercased()
        let pattern = fields["path"]?.stringValue ?? "/**"
        guard pattern.hasPrefix("/") else { throw .invalid("path", "must start with /") }
        let status = fields["status"]?.doubleValue.map { Int($0) } ?? (kind == .rateLimit ? 429 : 500)
        guard (400...599).contains(status) else { throw .invalid("status", "must be 400...599") }
        let rate = fields["rate"]?.doubleValue ?? 1
        guard (0...1).contains(rate) else { throw .invalid("rate", "must be in [0, 1]") }
        var remaining: Int?
        if let count = fields["count"], !count.isNull {
            guard let value = count.doubleValue, value >= 1, value == value.rounded() else {
                throw .invalid("count", "positive integer or null (unlimited)")
            }
            remaining = Int(value)
        }
        let retryAfter = fields["retry_after"]?.doubleValue.map { Int($0) } ?? 1
        guard retryAfter >= 0 else { throw .invalid("retry_after", "seconds >= 0") }
        let latency = fields["latency_ms"]?.doubleValue.map { Int($0) } ?? (kind == .latency ? 100 : 0)
        guard (0...60_000).contains(latency) else { throw .invalid("latency_ms", "must be 0...60000") }
        if let raw = fields["delay_seconds"], raw.doubleValue == nil { throw .invalid("delay_seconds", "seconds") }
        let delay = fields["delay_seconds"]?.doubleValue ?? (kind == .delayWebhooks ? 60 : 0)
        guard (0...31 * 86_400).contains(delay) else { throw .invalid("delay_seconds", "must be 0...2678400") }
        if let type = fields["event_type"], type.stringValue == nil, !type.isNull {
            throw .invalid("event_type", "must be a string")
        }
        var expiresAt: Date?
        if let raw = fields["for_seconds"], !raw.isNull {
            guard let seconds = raw.doubleValue, seconds > 0, seconds <= 31 * 86_400 else {
                throw .invalid("for_seconds", "seconds in (0, 2678400] or null (for ever)")
            }
            expiresAt = now.addingTimeInterval(seconds)
        }
        var rule = Rule(
            id: "fault-\(nextID)", kind: kind, method: method == "*" ? nil : method,
            path: pattern.split(separator: "/"), status: status, rate: rate, remaining: remaining,
            retryAfter: retryAfter, latencyMilliseconds: latency, eventType: fields["event_type"]?.stringValue)
        rule.delaySeconds = delay
        rule.expiresAt = expiresAt
        nextID += 1
        rules.append(rule)
        return rule.json
    }

    mutating func clear() { rules.removeAll() }

    var json: JSON { ["data": .array(rules.map(\.json))] }

    /// Draws the faults a request meets (each matching rule fires at its rate while it has count left).
    mutating func httpOutcome(method: String, path: [Substring], now: Date) -> HTTPOutcome {
        var outcome = HTTPOutcome()
        for index in rules.indices where !rules[index].kind.isWebhookFault {
            guard outcome.problem == nil || rules[index].kind == .latency,
                rules[index].method == nil || rules[index].method == method,
                Self.matches(rules[index].path, path), fire(index, now: now)
            else { continue }
            let rule = rules[index]
            switch rule.kind {
            case .latency:
                outcome.latencyMilliseconds += rule.latencyMilliseconds
            case .rateLimit:
                var problem = APIProblem.tooManyRequests(retryAfter: rule.retryAfter)
                problem.status = rule.status
                outcome.problem = problem
            default:
                outcome.problem = APIProblem(
                    status: rule.status, code: "emulated_fault", title: "Emulated fault",
                    detail: "Injected by \(rule.id)")
            }
        }
        return outcome
    }

    /// The webhook fault a delivery meets, if any (the first matching rule that fires).
    mutating func webhookFault(eventTypes: [String], now: Date) -> Rule? {
        for index in rules.indices where rules[index].kind.isWebhookFault {
            if let type = rules[index].eventType, !eventTypes.contains(type) { continue }
            if fire(index, now: now) { return rules[index] }
        }
        return nil
    }

    private mutating func fire(_ index: Int, now: Date) -> Bool {
        if let remaining = rules[index].remaining, remaining <= 0 { return false }
        if let expiresAt = rules[index].expiresAt, now >= expiresAt { return false }
        if rules[index].rate < 1, random.unit() >= rules[index].rate { return false }
        if let remaining = rules[index].remaining { rules[index].remaining = remaining - 1 }
        rules[index].fired += 1
        return true
    }

    /// `*` matches one segment, `**` any number (including none); anything else matches itself.
    static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        guard let head = pattern.first else { return path.isEmpty }
        if head == "**" {
            return (0...path.count).contains { matches(Array(pattern.dropFirst()), Array(path.dropFirst($0))) }
        }
        guard let first = path.first, head == "*" || head == first else { return false }
        return matches(Array(pattern.dropFirst()), Array(path.dropFirst()))
    }
}
