import Foundation

/// A position in a driver's trip list, opaque to the app: base64url of `t1:<started_at µs>:<trip id>`.
///
/// The list is ordered by `(started_at, id)` descending and a page reads strictly after its cursor, so trips added
/// while the driver pages (they are newer) appear before the first page and never shift the later ones.
struct TripCursor: CustomStringConvertible, Equatable {
    var micros: Int64
    var id: UUID

    init(micros: Int64, id: UUID) {
        self.micros = micros
        self.id = id
    }

    /// Parses a cursor this API returned; anything else is a 400 problem.
    init(parsing text: String) throws {
        let invalid = APIProblem.badRequest("cursor: is not a cursor this API returned")
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard text.count <= 128, let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8)
        else { throw invalid }
        let parts = plain.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "t1", let micros = Int64(parts[1]),
            let id = UUID(uuidString: String(parts[2]))
        else { throw invalid }
        self.init(micros: micros, id: id)
    }

    var description: String {
        Data("t1:\(self.micros):\(self.id.uuidString.lowercased())".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
