import Foundation

/// A position in the caller's order list: `<created_at µs>_<order id>`.
struct OrderCursor: CustomStringConvertible, Equatable {
    var micros: Int64
    var id: UUID

    init(micros: Int64, id: UUID) {
        self.micros = micros
        self.id = id
    }

    init(parsing text: String) throws {
        let parts = text.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let micros = Int64(parts[0]), Self.micros.contains(micros),
            let id = UUID(uuidString: String(parts[1]))
        else {
            throw APIProblem.validation("cursor", "is not a cursor this API returned")
        }
        self.init(micros: micros, id: id)
    }

    /// The instants a cursor can name: the epoch to the end of year 9999. The query turns the number into a
    /// timestamp (`'epoch' + micros * interval '1 microsecond'`), and an `Int64` near its maximum overflows
    /// PostgreSQL's interval (a 500 before this bound); no order is created outside this range.
    static let micros: ClosedRange<Int64> = 0...253_402_300_799_999_999

    var description: String { "\(self.micros)_\(self.id.uuidString.lowercased())" }
}
