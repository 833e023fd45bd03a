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
    static func latitude(_ value: Double, field: String) throws {
        guard value.isFinite, (-90...90).contains(value) else {
            throw APIProblem.validation(field, "latitude must be between -90 and 90")
        }
    }

    static func longitude(_ value: Double, field: String) throws {
        guard value.isFinite, (-180...180).contains(value) else {
            throw APIProblem.validation(field, "longitude must be between -180 and 180")
        }
    }

    static func text(_ value: String, field: String, length: ClosedRange<Int>) throws -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard length.contains(trimmed.count) else {
            throw APIProblem.validation(field, "must be \(length.lowerBound) to \(length.upperBound) characters")
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
}
