/// What produced a delivery: a row change, or (for timer and scheduled functions) time.
public enum ChangeOperation: String, Sendable, Hashable, Codable, CaseIterable {
    /// A row was inserted (`INSERT`): `before` is `nil`.
    case create
    /// A row was updated (`UPDATE` that changed at least one column).
    case update
    /// A row was deleted (`DELETE`): `after` is `nil`.
    case delete
    /// A timer fell due (``TimerFunction``): no row changed; `FunctionContext.timer` says which timer.
    case timer
    /// A schedule ticked (``ScheduledFunction``): no row changed; `FunctionContext.tick` says which tick.
    case tick

    /// The operations a row trigger can react to.
    public static let rowChanges: [ChangeOperation] = [.create, .update, .delete]
}
