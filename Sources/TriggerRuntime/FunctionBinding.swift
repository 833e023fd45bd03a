/// What binds a function to the database: its persisted name, what fires it and its delivery options.
///
/// A binding is a fact of a function's type, so it is built without constructing the function: installing the
/// capture triggers and schedules (`migrate`), listing the functions and checking a registration need no HyperTrack,
/// no store and no other dependency of the handlers. `FunctionRegistry` pairs each binding with a handler for running.
///
/// ```swift
/// let bindings = [FunctionBinding(UpdateOrderStatus.self), FunctionBinding(ExpireOffer.self)]
/// try await TriggerInstaller(client: client, logger: logger).install(bindings)
/// ```
public struct FunctionBinding: Sendable, Hashable {
    /// What fires a function.
    public enum Kind: Sendable, Hashable {
        /// Row changes matching the trigger (``TriggerFunction``).
        case rows(Trigger)
        /// Its timers, scheduled with ``TimerScheduling`` (``TimerFunction``).
        case timer
        /// A schedule's ticks (``ScheduledFunction``).
        case schedule(Schedule)
    }

    /// The persisted name.
    public var name: FunctionName
    /// What fires the function.
    public var kind: Kind
    /// Attempts, timeout, backoff.
    public var options: FunctionOptions

    /// The row trigger, for a function fired by row changes; `nil` for timer and scheduled functions.
    public var trigger: Trigger? {
        if case .rows(let trigger) = self.kind { return trigger }
        return nil
    }

    /// The schedule, for a scheduled function.
    public var schedule: Schedule? {
        if case .schedule(let schedule) = self.kind { return schedule }
        return nil
    }

    /// Creates a binding.
    /// - Parameters:
    ///   - name: The persisted name.
    ///   - kind: What fires it.
    ///   - options: Attempts, timeout, backoff.
    public init(name: FunctionName, kind: Kind, options: FunctionOptions = FunctionOptions()) {
        self.name = name
        self.kind = kind
        self.options = options
    }

    /// Creates the binding of a function fired by row changes.
    /// - Parameters:
    ///   - name: The persisted name.
    ///   - trigger: What fires it.
    ///   - options: Attempts, timeout, backoff.
    public init(name: FunctionName, trigger: Trigger, options: FunctionOptions = FunctionOptions()) {
        self.init(name: name, kind: .rows(trigger), options: options)
    }

    /// The binding of a typed row function, read from its type.
    /// - Parameter function: The function's type.
    public init<F: TriggerFunction>(_ function: F.Type) {
        self.init(name: F.name, trigger: F.trigger, options: F.options)
    }

    /// The binding of a timer function, read from its type.
    /// - Parameter function: The function's type.
    public init<F: TimerFunction>(_ function: F.Type) {
        self.init(name: F.name, kind: .timer, options: F.options)
    }

    /// The binding of a scheduled function, read from its type. The schedule is checked when the binding is
    /// registered or installed.
    /// - Parameter function: The function's type.
    public init<F: ScheduledFunction>(_ function: F.Type) {
        self.init(name: F.name, kind: .schedule(F.schedule), options: F.options)
    }
}
