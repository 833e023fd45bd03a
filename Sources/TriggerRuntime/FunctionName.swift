/// The persisted name of a trigger function.
///
/// The name is data: it is stored with every delivery in the outbox, so it must never be derived from a Swift type
/// name. Renaming a type must not change the name of the function it implements.
public struct FunctionName: Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as stored in the database.
    public let rawValue: String

    /// Creates a function name.
    /// - Parameter rawValue: The name as stored in the database (letters, digits, `_`, `-`, `.`).
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }

    public var description: String { self.rawValue }
}
