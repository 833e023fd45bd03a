import Foundation
import PostgresNIO

/// The statements a worker runs for every delivery, prepared once per pooled connection (PostgreSQL then skips
/// parsing and planning them on every call).
enum PostgresStatements {
    /// Claims a batch (see `trigger_runtime.claim`).
    struct Claim: PostgresPreparedStatement {
        static let name = "trigger_runtime_claim_v2"
        static let sql = """
            SELECT id, function_name, table_name, operation, document_key, old_row::text, new_row::text,
                   committed_at, attempt, lease_token, timer_key
            FROM trigger_runtime.claim($1, $2, $3, $4)
            """
        typealias Row = Delivery

        var functions: [String]
        var limit: Int32
        var owner: String
        var leaseSeconds: Double

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 4)
            bindings.append(self.functions)
            bindings.append(self.limit)
            bindings.append(self.owner)
            bindings.append(self.leaseSeconds)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Delivery {
            let (id, function, table, operation, key, before, after, committedAt, attempt, token, timerKey) =
                try row.decode((Int64, String, String, String, String, String?, String?, Date, Int, UUID, String?).self)
            return Delivery(
                id: id,
                function: FunctionName(function),
                table: table,
                operation: ChangeOperation(rawValue: operation) ?? .update,
                documentKey: key,
                before: before.map { Data($0.utf8) },
                after: after.map { Data($0.utf8) },
                committedAt: committedAt,
                attempt: attempt,
                leaseToken: token,
                timerKey: timerKey
            )
        }
    }

    /// Moves the deliveries whose claims still hold them to the done log and makes each chain's next delivery due
    /// now (migration 0007); returns their ids. The rows are found through the primary key (`id = ANY`), each
    /// checked against its own token; `mark_done()` plans that once per connection (migration 0012).
    struct MarkDoneBatch: PostgresPreparedStatement {
        static let name = "trigger_runtime_mark_done_batch_v3"
        static let sql = "SELECT id FROM trigger_runtime.mark_done($1::int8[], $2::uuid[]) AS id"
        typealias Row = Int64

        var ids: [Int64]
        var leaseTokens: [UUID]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(self.ids)
            bindings.append(self.leaseTokens)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }
}
