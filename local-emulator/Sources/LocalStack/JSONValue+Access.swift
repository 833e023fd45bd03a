import HyperTrackAPI

extension JSONValue {
    /// The member `key` of an object; `.null` when absent or when this is not an object.
    public subscript(key: String) -> JSONValue { self.objectValue?[key] ?? .null }

    /// The elements of an array; empty when this is not an array.
    public var items: [JSONValue] {
        if case .array(let items) = self { return items }
        return []
    }

    /// Compact JSON text.
    var text: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.keys.sorted().map { "\"\($0)\":\(fields[$0]!.text)" }.joined(separator: ",") + "}"
        }
    }
}

/// Polls `condition` until it holds or `timeout` passes (for state the worker writes; there is no event to await).
/// `every`: the pace of the looks (a costly look, such as a query over a city's drivers, wants a slower one).
func eventually(
    _ what: String,
    timeout: Duration,
    every pace: Duration = .milliseconds(25),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while true {
        if try await condition() { return }
        guard ContinuousClock.now < deadline else { throw LocalStackError.timedOut("timed out waiting for \(what)") }
        try await Task.sleep(for: pace)
    }
}

/// Like ``eventually(_:timeout:_:)`` but answers whether it held instead of throwing.
func holds(within timeout: Duration, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(25))
    }
    return try await condition()
}
