/// Where a manoeuvre added by ``HyperTrackEmulator/addManeuver(tripID:kind:afterSeconds:speedKmh:durationSeconds:)``
/// landed in its drive.
public struct InjectedManeuver: Sendable, Equatable {
    /// `hard_brake`, `rapid_acceleration`, `speeding` or `hard_turn`.
    public var kind: String
    /// Seconds into the drive it starts (the first whole second from the one asked where it can be driven).
    public var afterSeconds: Double
    /// `speeding`: the posted limit of the street it happens on, km/h.
    public var postedLimitKmh: Double?
    /// `hard_turn`: seconds into the drive the corner starts.
    public var cornerSeconds: Double?
}
