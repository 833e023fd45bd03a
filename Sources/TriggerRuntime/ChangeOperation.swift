/// The kind of row change that produced a delivery.
public enum ChangeOperation: String, Sendable, Hashable, Codable, CaseIterable {
    /// A row was inserted (`INSERT`): `before` is `nil`.
    case create
    /// A row was updated (`UPDATE` that changed at least one column).
    case update
    /// A row was deleted (`DELETE`): `after` is `nil`.
    case delete
}
