import NIOHTTP1

extension HyperTrackClient {
    /// Creates a trip (`POST /trips`, 201). Sent exactly once, never retried: put an identity in `metadata` and
    /// look it up with ``activeTrips(deviceID:)`` before creating again.
    /// - Parameter request: Device, destination, geofences and metadata.
    /// - Returns: The new trip.
    public func createTrip(_ request: CreateTripRequest) async throws -> Trip {
        try self.requireID(request.deviceID, "device id")
        return try await self.send(.POST, self.target(["trips"]), json: request, as: Trip.self, repeatability: .once)
    }

    /// Reads a trip (`GET /trips/{trip_id}`).
    /// - Parameter id: The trip's id.
    public func trip(id: String) async throws -> Trip {
        try self.requireID(id, "trip id")
        return try await self.get(self.target(["trips", id]), as: Trip.self)
    }

    /// Lists trips (`GET /trips`), page by page as the sequence is iterated.
    /// - Parameters:
    ///   - status: Only trips with this status; the service's default (active trips) when `nil`.
    ///   - deviceID: Only this device's trips (sent as `device_id`; not every server filters on it).
    public func trips(status: TripStatus? = nil, deviceID: String? = nil) -> Pages<Trip> {
        var query: [(String, String)] = []
        if let status { query.append(("status", status.rawValue)) }
        if let deviceID { query.append(("device_id", deviceID)) }
        return self.pages(self.target(["trips"], query: query), of: Trip.self)
    }

    /// Completes a trip (`POST /trips/{trip_id}/complete`, 202). Completion is asynchronous: the trip reads
    /// `processing_completion`, then `completed`. Retried like any safe request.
    ///
    /// The raw call: an already completed trip may be refused by the service. The backend's functions (their
    /// `TripTracking` adapter) treat that as success.
    /// - Parameter id: The trip's id.
    public func requestTripCompletion(id: String) async throws {
        try self.requireID(id, "trip id")
        _ = try await self.send(.POST, self.target(["trips", id, "complete"]), body: nil, repeatability: .safe)
    }

    /// Reads one of a trip's geofences (`GET /trips/{trip_id}/geofence/{geofence_id}`).
    /// - Parameters:
    ///   - tripID: The trip.
    ///   - geofenceID: The geofence.
    public func tripGeofence(tripID: String, geofenceID: String) async throws -> Geofence {
        try self.requireID(tripID, "trip id")
        try self.requireID(geofenceID, "geofence id")
        return try await self.get(self.target(["trips", tripID, "geofence", geofenceID]), as: Geofence.self)
    }

    /// Replaces a trip geofence's metadata (`PATCH /trips/{trip_id}/geofence/{geofence_id}`); works on active and
    /// completed trips.
    /// - Parameters:
    ///   - tripID: The trip.
    ///   - geofenceID: The geofence.
    ///   - metadata: The new metadata.
    public func updateTripGeofence(tripID: String, geofenceID: String, metadata: [String: JSONValue]) async throws {
        try self.requireID(tripID, "trip id")
        try self.requireID(geofenceID, "geofence id")
        let body = try self.encode(MetadataBody(metadata: metadata))
        let target = self.target(["trips", tripID, "geofence", geofenceID])
        _ = try await self.send(.PATCH, target, body: body, repeatability: .safe)
    }

    /// Adds geofences to an ongoing trip (`PATCH /trips/{trip_id}/geofence`).
    /// - Parameters:
    ///   - tripID: The trip.
    ///   - geofences: The geofences to add; at least one.
    public func addTripGeofences(tripID: String, geofences: [GeofenceDefinition]) async throws {
        try self.requireID(tripID, "trip id")
        guard !geofences.isEmpty else {
            throw HyperTrackAPIError(code: .invalidRequest, reason: "at least one geofence is required")
        }
        let body = try self.encode(GeofencesBody(geofences: geofences))
        _ = try await self.send(.PATCH, self.target(["trips", tripID, "geofence"]), body: body, repeatability: .safe)
    }
}

struct MetadataBody: Encodable {
    var metadata: [String: JSONValue]
}

struct GeofencesBody: Encodable {
    var geofences: [GeofenceDefinition]
}
