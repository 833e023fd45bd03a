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
        guard parts.count == 2, let micros = Int64(parts[0]), let id = UUID(uuidString: String(parts[1])) else {
            throw APIProblem.validation("cursor", "is not a cursor this API returned")
        }
        self.init(micros: micros, id: id)
    }

    var description: String { "\(self.micros)_\(self.id.uuidString.lowercased())" }
}
