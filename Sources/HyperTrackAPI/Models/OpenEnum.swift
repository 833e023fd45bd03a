/// A string enum that keeps values it does not know instead of failing to decode.
///
/// HyperTrack adds values over time (statuses, activities, webhook types); a client built on closed enums would
/// reject whole payloads for one new word. Conforming types are structs with `static let` known values.
public protocol OpenEnum: RawRepresentable<String>, Codable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// Creates a value from its wire string, known or not.
    init(rawValue: String)
}

extension OpenEnum {
    /// Creates a value from a string literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// Decodes the wire string.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the wire string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }

    /// The wire string.
    public var description: String { self.rawValue }
}
