import Foundation
import Functions
import HyperTrackAPI
import Logging
import PostgresNIO
import TriggerRuntime

extension FunctionsShell {
    /// Everything wrong with an invocation's documents, found at once before the function runs: keys that are not
    /// columns of the function's table (with the change a Firebase-era payload needs: `pickup: {latitude,
    /// longitude}` is `pickup_lat`/`pickup_lng`, a nested `driver` is `driver_id`, …), required columns missing,
    /// values of the wrong JSON type, an order status that does not exist, and, for an update, a row that is not in
    /// the database (the function would update nothing and log as if it had). Each problem names `before` or
    /// `after`.
    ///
    /// Why here and not in the function's decoding: a decoding error stops at the first key and names no side, so
    /// a Firebase payload took one run per mistake.
    /// - Parameters:
    ///   - invocation: The parsed payload.
    ///   - table: The function's table.
    ///   - keyColumn: Its key column.
    ///   - connection: The shell's connection (in its transaction).
    ///   - logger: Logs the queries.
    /// - Returns: The problems, one line each; empty when the payload fits.
    static func problems(
        _ invocation: Invocation,
        table: String,
        keyColumn: String,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> [String] {
        let rows = try await connection.query(
            """
            SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef
            FROM pg_attribute a WHERE a.attrelid = to_regclass(\(table)::text) AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attnum
            """,
            logger: logger
        )
        var columns: [(name: String, type: String, required: Bool)] = []
        for try await (name, type, notNull, hasDefault) in rows.decode((String, String, Bool, Bool).self) {
            columns.append((name, type, notNull && !hasDefault))
        }
        guard !columns.isEmpty else { return ["the table \(table) does not exist in this database (is it migrated?)"] }
        var problems: [String] = []
        for (side, data) in [("before", invocation.before), ("after", invocation.after)] {
            guard let data else { continue }
            let document = try JSONDecoder().decode(JSONValue.self, from: data)
            guard let fields = document.objectValue else {
                problems.append("\(side): must be an object (a row of \(table))")
                continue
            }
            let known = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0) })
            for key in fields.keys.sorted() where known[key] == nil {
                problems.append("\(side).\(key): " + Self.firebaseHint(key, fields[key] ?? .null, table: table))
            }
            for column in columns where column.required && (fields[column.name] ?? .null) == .null {
                problems.append("\(side).\(column.name): is required (a column of \(table) without a default)")
            }
            for column in columns {
                guard let value = fields[column.name], value != .null else { continue }
                if let expected = Self.mismatch(value, type: column.type) {
                    problems.append("\(side).\(column.name): must be \(expected) (\(column.type)), not \(value.text)")
                } else if table.hasSuffix("orders"), column.name == "status", let status = value.stringValue,
                    OrderStatus(rawValue: status) == nil
                {
                    let all = OrderStatus.allCases.map(\.rawValue).joined(separator: ", ")
                    problems.append("\(side).status: \"\(status)\" is not an order status (one of \(all))")
                }
            }
        }
        if problems.isEmpty, invocation.operation == .update {
            let exists = try await connection.query(
                """
                SELECT EXISTS (SELECT 1 FROM \(unescaped: table) WHERE \(unescaped: keyColumn)::text = \(invocation.documentKey))
                """,
                logger: logger
            )
            for try await found in exists.decode(Bool.self) where !found {
                problems.append(
                    "\(table) has no row with \(keyColumn) = \(invocation.documentKey): an update is of a row that exists "
                        + "(use one of yours, e.g. `SELECT to_jsonb(t) FROM \(table) t`, as before and after)"
                )
            }
        }
        return problems
    }

    /// What a key that is not a column should be, naming the Firebase sample's shapes.
    static func firebaseHint(_ key: String, _ value: JSONValue, table: String) -> String {
        switch key {
        case "pickup", "dropoff":
            return "not a column of \(table): write a place as \(key)_lat, \(key)_lng (numbers) and \(key)_address, "
                + "not {latitude, longitude}"
        case "driver":
            let device = value.objectValue?["device_id"]?.stringValue.map { " = '\($0)'" } ?? " = …"
            return "not a column of \(table): use driver_id, the driver's users.id "
                + "(`SELECT id FROM users WHERE device_id\(device)`)"
        case "rider":
            return "not a column of \(table): use rider_id, the rider's users.id"
        case "trip_id" where table.hasSuffix("orders"):
            return "orders have no trip_id: each HyperTrack trip is an order_legs row (order_id, leg, trip_id)"
        default:
            return "not a column of \(table)"
        }
    }

    /// The JSON type a column of PostgreSQL type `type` needs, when `value` is not of it.
    static func mismatch(_ value: JSONValue, type: String) -> String? {
        switch type {
        case "double precision", "integer", "bigint", "smallint", "real", "numeric":
            return value.doubleValue == nil ? "a number" : nil
        case "uuid":
            return value.stringValue.flatMap(UUID.init(uuidString:)) == nil ? "a UUID string" : nil
        case "boolean":
            if case .bool = value { return nil }
            return "true or false"
        case "json", "jsonb":
            return nil
        default:
            if type.hasSuffix("[]") {
                if case .array = value { return nil }
                return "an array"
            }
            return value.stringValue == nil ? "a string" : nil
        }
    }
}
