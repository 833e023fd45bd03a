import Foundation

extension FunctionRegistry {
    /// Registers a timer function.
    /// - Parameter function: The function; its `Payload` is decoded from each timer's JSON.
    public mutating func register<F: TimerFunction>(_ function: F) {
        self.registerTimer(F.name, options: F.options, as: F.Payload.self) { timer, context in
            try await function.fire(timer, context: context)
        }
    }

    /// Registers a scheduled function; throws `invalidRegistration` if its schedule is malformed.
    /// - Parameter function: The function.
    public mutating func register<F: ScheduledFunction>(_ function: F) throws {
        try self.registerSchedule(F.name, schedule: F.schedule, options: F.options) { tick, context in
            try await function.run(tick, context: context)
        }
    }

    /// Registers a closure as a timer function.
    /// - Parameters:
    ///   - name: The persisted name.
    ///   - options: Attempts, timeout, backoff.
    ///   - payloadType: The payload type decoded from each timer's JSON.
    ///   - handler: The function's body.
    public mutating func registerTimer<Payload: Codable & Sendable>(
        _ name: FunctionName,
        options: FunctionOptions = FunctionOptions(),
        as payloadType: Payload.Type = Payload.self,
        _ handler: @escaping @Sendable (TimerFiring<Payload>, FunctionContext) async throws -> Void
    ) {
        let binding = FunctionBinding(name: name, kind: .timer, options: options)
        self.add(
            RegisteredFunction(binding: binding) { _, after, context in
                guard let timer = context.timer else {
                    throw TriggerRuntimeError(.invalidRegistration, "timer function \(name) was run without a timer")
                }
                let payload = try JSONDecoder.rowDecoder().decode(Payload.self, from: after ?? Data("null".utf8))
                let firing = TimerFiring(
                    documentKey: context.documentKey, key: timer.key, dueAt: timer.dueAt, payload: payload)
                try await handler(firing, context)
            }
        )
    }

    /// Registers a closure as a scheduled function; throws `invalidRegistration` if `schedule` is malformed.
    /// - Parameters:
    ///   - name: The persisted name.
    ///   - schedule: When it runs.
    ///   - options: Attempts, timeout, backoff.
    ///   - handler: The function's body.
    public mutating func registerSchedule(
        _ name: FunctionName,
        schedule: Schedule,
        options: FunctionOptions = FunctionOptions(),
        _ handler: @escaping @Sendable (ScheduleTick, FunctionContext) async throws -> Void
    ) throws {
        try schedule.validate()
        let binding = FunctionBinding(name: name, kind: .schedule(schedule), options: options)
        self.add(
            RegisteredFunction(binding: binding) { _, _, context in
                guard let tick = context.tick else {
                    throw TriggerRuntimeError(.invalidRegistration, "scheduled function \(name) was run without a tick")
                }
                try await handler(tick, context)
            }
        )
    }
}

extension JSONEncoder {
    /// The encoder of timer payloads: dates as ISO-8601 text with milliseconds, which `rowDecoder()` reads back
    /// (and `events timers` shows readably).
    static func timerPayloadEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        return encoder
    }
}
