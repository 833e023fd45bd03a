import Foundation
import HyperTrackAPI
import InMemoryLogging
import Logging
import PostgresNIO
import TriggerRuntime

/// `functions:shell` for our functions: fires one registered function with a Firebase-style payload in a
/// transaction of its own (committed when the function succeeds, rolled back when it throws), capturing its logs
/// and the deliveries its writes captured (each with the row before and after).
public enum FunctionsShell {
    /// The change to fire, parsed from a payload.
    public struct Invocation: Sendable {
        public var operation: ChangeOperation
        public var before: Data?
        public var after: Data?
        public var documentKey: String
    }

    /// A delivery the function's writes captured: a row diff and the function it will fire.
    public struct CapturedDelivery: Sendable {
        public var function: String
        public var table: String
        public var operation: String
        public var documentKey: String
        public var before: JSONValue
        public var after: JSONValue
    }

    /// What the call did.
    public struct Outcome: Sendable {
        public var function: String
        public var invocation: Invocation
        /// Every line the function logged, `LEVEL message {metadata}`.
        public var logs: [String]
        /// The function's error; `nil` when it succeeded (its writes were committed).
        public var error: String?
        /// Deliveries captured from its writes (empty when it failed: they were rolled back).
        public var captured: [CapturedDelivery]

        public var succeeded: Bool { self.error == nil }

        /// The outcome for a terminal.
        public var report: String {
            var lines = ["\(self.function) (\(self.invocation.operation.rawValue) of \(self.invocation.documentKey))"]
            lines.append("logs:")
            lines += self.logs.isEmpty ? ["  (none)"] : self.logs.map { "  " + $0 }
            if let error { lines.append("outcome: FAILED: \(error) (its writes were rolled back)") } else {
                lines.append("outcome: succeeded (its writes were committed)")
            }
            lines.append("changes captured (\(self.captured.count)):")
            for delivery in self.captured {
                lines.append(
                    "  \(delivery.table) \(delivery.operation) \(delivery.documentKey) → \(delivery.function)"
                )
                lines.append("    before: \(delivery.before.text)")
                lines.append("    after:  \(delivery.after.text)")
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Parses a payload for `function`: `{"before": …, "after": …}` (an update, or a create/delete when one side
    /// is absent or null), or the bare document for a function that fires on create or on delete.
    /// - Parameters:
    ///   - payload: The JSON text.
    ///   - function: The function it is for.
    ///   - operation: Forces the operation of a bare document (for functions on create and delete).
    public static func parse(
        _ payload: Data,
        for function: RegisteredFunction,
        operation: ChangeOperation? = nil
    ) throws -> Invocation {
        let json: JSONValue
        do { json = try JSONDecoder().decode(JSONValue.self, from: payload) } catch {
            throw LocalStackError.invalidPayload("the payload is not JSON: \(error)")
        }
        guard let object = json.objectValue else { throw LocalStackError.invalidPayload("the payload must be a JSON object") }
        guard let trigger = function.trigger else {
            throw LocalStackError.invalidPayload(
                "\(function.name) runs on timers or a schedule, not on row changes: the shell fires row functions only")
        }
        var before: JSONValue?
        var after: JSONValue?
        let resolved: ChangeOperation
        if !object.isEmpty, Set(object.keys).isSubset(of: ["before", "after"]) {
            // A missing side and a null side are the same: no document.
            before = object["before"] == .some(.null) ? Optional<JSONValue>.none : object["before"]
            after = object["after"] == .some(.null) ? Optional<JSONValue>.none : object["after"]
            switch (before, after) {
            case (.some, .some): resolved = .update
            case (nil, .some): resolved = .create
            case (.some, nil): resolved = .delete
            case (nil, nil): throw LocalStackError.invalidPayload("neither \"before\" nor \"after\" is a document")
            }
        } else {
            let allowed = trigger.operations.subtracting([.update])
            guard let chosen = operation ?? (allowed.count == 1 ? allowed.first : nil), chosen != .update else {
                throw LocalStackError.invalidPayload(
                    "\(function.name) fires on \(Self.describe(trigger)): give {\"before\": {…}, \"after\": {…}}"
                        + " (or the bare document with an operation of create or delete)"
                )
            }
            resolved = chosen
            if chosen == .create { after = json } else { before = json }
        }
        guard trigger.operations.contains(resolved) else {
            throw LocalStackError.invalidPayload(
                "\(function.name) fires on \(Self.describe(trigger)), but the payload is a \(resolved.rawValue)"
            )
        }
        let row = after ?? before ?? .null
        let key: String
        switch row[trigger.keyColumn] {
        case .string(let text): key = text
        case .number(let number): key = number.rounded() == number ? "\(Int(number))" : "\(number)"
        default:
            throw LocalStackError.invalidPayload("the document has no \"\(trigger.keyColumn)\" (the key of \(trigger.table))")
        }
        return Invocation(
            operation: resolved,
            before: try before.map { try JSONEncoder().encode($0) },
            after: try after.map { try JSONEncoder().encode($0) },
            documentKey: key
        )
    }

    static func describe(_ trigger: Trigger) -> String {
        let operations = trigger.operations.map(\.rawValue).sorted().joined(separator: "/")
        return "\(operations) of \(trigger.table)"
    }

    /// Fires `function` with `invocation` in one transaction on `client`.
    /// - Parameters:
    ///   - function: The function.
    ///   - invocation: The change.
    ///   - client: A running client on a migrated database with the capture triggers installed.
    ///   - logger: Logs the shell's own queries (the function's logs are captured, not sent here).
    public static func call(
        _ function: RegisteredFunction,
        with invocation: Invocation,
        client: PostgresClient,
        logger: Logger
    ) async throws -> Outcome {
        let handler = InMemoryLogHandler()
        var functionLogger = Logger(label: "functions.\(function.name)", factory: { _ in handler })
        functionLogger.logLevel = .debug
        let result: (error: String?, captured: [CapturedDelivery]) = try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let context = FunctionContext(
                    eventID: 0,
                    functionName: function.name,
                    operation: invocation.operation,
                    table: function.trigger?.table ?? "",
                    documentKey: invocation.documentKey,
                    commitTime: Date(),
                    attempt: 1,
                    logger: functionLogger,
                    transaction: connection
                )
                guard let trigger = function.trigger else {
                    throw LocalStackError.invalidPayload("\(function.name) runs on timers or a schedule, not on row changes")
                }
                let problems = try await Self.problems(
                    invocation,
                    table: trigger.table,
                    keyColumn: trigger.keyColumn,
                    on: connection,
                    logger: logger
                )
                guard problems.isEmpty else {
                    throw LocalStackError.invalidPayload(
                        "the payload does not fit \(trigger.table) (\(problems.count) problem"
                            + (problems.count == 1 ? "" : "s") + "):\n  - " + problems.joined(separator: "\n  - ")
                    )
                }
                try await function.invoke(before: invocation.before, after: invocation.after, context: context)
                let captured = try await Self.captured(on: connection, logger: logger)
                try await connection.query("COMMIT", logger: logger)
                return (nil, captured)
            } catch {
                try await connection.query("ROLLBACK", logger: logger)
                return ("\(error)", [])
            }
        }
        let logs = handler.entries.map { entry in
            let metadata = entry.metadata.isEmpty ? "" : " " + entry.metadata.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(entry.level.rawValue.uppercased()) \(entry.message)\(metadata)"
        }
        return Outcome(
            function: function.name.description, invocation: invocation, logs: logs, error: result.error,
            captured: result.captured
        )
    }

    /// The deliveries inserted by this transaction (other transactions' rows are excluded by `xmin`).
    static func captured(on connection: PostgresConnection, logger: Logger) async throws -> [CapturedDelivery] {
        let rows = try await connection.query(
            """
            SELECT function_name, table_name, operation, document_key,
                   coalesce(old_row::text, 'null'), coalesce(new_row::text, 'null')
            FROM trigger_runtime.deliveries
            WHERE xmin::text = (pg_current_xact_id()::text::bigint % 4294967296)::text
            ORDER BY id
            """,
            logger: logger
        )
        var captured: [CapturedDelivery] = []
        for try await (function, table, operation, key, before, after) in rows.decode(
            (String, String, String, String, String, String).self
        ) {
            captured.append(
                CapturedDelivery(
                    function: function, table: table, operation: operation, documentKey: key,
                    before: try JSONDecoder().decode(JSONValue.self, from: Data(before.utf8)),
                    after: try JSONDecoder().decode(JSONValue.self, from: Data(after.utf8))
                )
            )
        }
        return captured
    }
}
