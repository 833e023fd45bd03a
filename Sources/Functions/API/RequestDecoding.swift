import Foundation
import Hummingbird

/// Decodes JSON request bodies, turning decoding failures into 400 problems that name the field.
enum RequestDecoding {
    static func decode<T: Decodable>(
        _ type: T.Type,
        from request: Request,
        context: APIRequestContext
    ) async throws
        -> T
    {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        return try self.decode(type, from: Data(buffer.readableBytesView))
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard !data.isEmpty else { throw APIProblem.badRequest("the request body is empty; a JSON object is expected") }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch DecodingError.keyNotFound(let key, let context) {
            throw APIProblem.validation(Self.path(context.codingPath + [key]), "is required")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw APIProblem.validation("body", "must be a JSON object")
        } catch DecodingError.valueNotFound(_, let context) where context.codingPath.isEmpty {
            throw APIProblem.validation("body", "must be a JSON object")
        } catch DecodingError.valueNotFound(_, let context) {
            throw APIProblem.validation(Self.path(context.codingPath), "is required")
        } catch DecodingError.typeMismatch(let expected, let context) {
            throw APIProblem.validation(Self.path(context.codingPath), "must be \(Self.describe(expected))")
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            throw APIProblem.validation(Self.path(context.codingPath), "is not valid")
        } catch {
            throw APIProblem.badRequest("the request body is not valid JSON")
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            .replacingOccurrences(of: ".[", with: "[")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "an object"
        }
    }
}

/// Field checks that throw a problem naming the field.
enum Validate {
    /// A latitude in range, rounded to ``degrees(_:)``.
    static func latitude(_ value: Double, field: String) throws -> Double {
        guard value.isFinite, (-90...90).contains(value) else {
            throw APIProblem.validation(field, "latitude must be between -90 and 90")
        }
        return Self.degrees(value)
    }

    /// A longitude in range, rounded to ``degrees(_:)``.
    static func longitude(_ value: Double, field: String) throws -> Double {
        guard value.isFinite, (-180...180).contains(value) else {
            throw APIProblem.validation(field, "longitude must be between -180 and 180")
        }
        return Self.degrees(value)
    }

    /// Degrees rounded to 1e-9 (0.1 mm on the ground). A subnormal value such as `5e-324` is valid JSON and in
    /// range, but `earthdistance`'s float arithmetic underflows on it ("value out of range: underflow", a 500 that
    /// schemathesis found); rounding turns it into the 0 it means.
    static func degrees(_ value: Double) -> Double {
        (value * 1e9).rounded() / 1e9
    }

    /// A trimmed text field of `length` characters, counted as PostgreSQL's `length()` counts them: Unicode scalars,
    /// not Swift's grapheme clusters (a family emoji is one `Character` and seven scalars; counting `Character`s let
    /// a 200-emoji name through to the database's `CHECK (length(name) BETWEEN 1 AND 200)`, a 500). Control
    /// characters (NUL, which PostgreSQL's `text` cannot hold at all, newlines, escapes) are refused anywhere in the
    /// value: no field of this API is multi-line.
    static func text(_ value: String, field: String, length: ClosedRange<Int>) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if let control = trimmed.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(control.value, radix: 16, uppercase: true)
            let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            throw APIProblem.validation(field, "must not contain control characters (found U+\(code))")
        }
        guard length.contains(trimmed.unicodeScalars.count) else {
            throw APIProblem.validation(
                field,
                "must be \(length.lowerBound) to \(length.upperBound) characters (Unicode code points)"
            )
        }
        return trimmed
    }

    static func phone(_ value: String, field: String) throws -> String {
        let trimmed = try self.text(value, field: field, length: 3...32)
        guard trimmed.allSatisfy({ $0.isNumber || "+-() ".contains($0) }), trimmed.contains(where: \.isNumber) else {
            throw APIProblem.validation(field, "must be a phone number (digits, spaces, + - ( ))")
        }
        return trimmed
    }

    /// A phone number as accounts key it: `+` (when given) and the digits, without spaces or punctuation.
    static func normalizedPhone(_ value: String, field: String) throws -> String {
        let phone = try self.phone(value, field: field)
        let digits = phone.filter(\.isASCII).filter(\.isNumber)
        guard digits.count >= 3 else { throw APIProblem.validation(field, "must have at least 3 digits") }
        return (phone.hasPrefix("+") ? "+" : "") + digits
    }

    /// A sign-in code: exactly 6 digits.
    static func code(_ value: String, field: String) throws -> String {
        guard value.count == 6, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw APIProblem.validation(field, "must be the 6 digits of the code")
        }
        return value
    }
}
