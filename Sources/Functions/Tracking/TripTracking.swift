import HyperTrackAPI

/// Exactly what the backend's functions need from HyperTrack.
///
/// Declared here, by its consumer, so that `HyperTrackAPI` stays a plain client of the REST API:
/// ``HyperTrackTripTracking`` adapts the client (and adds the idempotence the functions rely on); unit tests use the
/// recording fake from `FunctionsTesting`.
public protocol TripTracking: Sendable {
    /// Creates a trip (`POST /trips`). Not retried blindly by implementations: callers make it idempotent with
    /// trip metadata and `activeTrips(deviceID:)`.
    func createTrip(_ request: CreateTripRequest) async throws -> Trip

    /// Reads a trip (`GET /trips/{id}`).
    func trip(id: String) async throws -> Trip

    /// Completes a trip (`POST /trips/{id}/complete`). A trip that is already completed or completing counts as
    /// success; an unknown trip throws.
    func completeTrip(id: String) async throws

    /// The device's active trips, for adopting a trip that a crashed attempt created but never recorded.
    func activeTrips(deviceID: String) async throws -> [Trip]

    /// Sets the device's name and/or metadata (`PATCH /devices/{id}`); `nil` leaves a field unchanged.
    func updateDevice(id: String, name: String?, metadata: [String: JSONValue]?) async throws

    /// Runs a Nearby request and polls it until `completed` or `deadline`; devices nearest first.
    func nearbyDevices(_ request: NearbyRequest, deadline: ContinuousClock.Instant) async throws -> [NearbyDevice]
}
