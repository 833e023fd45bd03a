import HyperTrackAPI

/// Stands in for HyperTrack where no credentials are configured (`migrate` and `functions list` need the
/// registry's triggers, not HyperTrack): every call fails with an error that says what to set.
public struct UnconfiguredTracking: TripTracking {
    /// The error of every call.
    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String {
            "HyperTrack is not configured: set HYPERTRACK_ACCOUNT_ID and HYPERTRACK_SECRET_KEY (and HYPERTRACK_BASE_URL "
                + "for the emulator), or run `ridesharing local`"
        }
    }

    /// Creates the stand-in.
    public init() {}

    public func createTrip(_ request: CreateTripRequest) async throws -> Trip { throw NotConfigured() }
    public func trip(id: String) async throws -> Trip { throw NotConfigured() }
    public func completeTrip(id: String) async throws { throw NotConfigured() }
    public func activeTrips(deviceID: String) async throws -> [Trip] { throw NotConfigured() }
    public func updateDevice(id: String, name: String?, metadata: [String: JSONValue]?) async throws {
        throw NotConfigured()
    }
    public func nearbyDevices(_ request: NearbyRequest, deadline: ContinuousClock.Instant) async throws
        -> [NearbyDevice]
    {
        throw NotConfigured()
    }
}
