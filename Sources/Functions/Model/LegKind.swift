/// The two legs of a ride: to the pickup, then to the dropoff. Each has at most one trip.
public enum LegKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The driver's trip to the rider.
    case pickup
    /// The ride itself, to the dropoff.
    case dropoff
}

/// A leg's trip as we track it: active, marked for completion, or completed on HyperTrack.
public enum LegStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// The trip is running.
    case active
    /// Marked for completion; `completeTrip` will complete it on HyperTrack.
    case completing
    /// HyperTrack accepted the completion (the summary may still be on its way).
    case completed
}
