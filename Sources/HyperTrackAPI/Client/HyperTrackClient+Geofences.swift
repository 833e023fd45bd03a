import NIOHTTP1

extension HyperTrackClient {
    /// Creates account geofences (`POST /geofences` with an array of definitions). Not retried.
    /// - Parameter geofences: The definitions; at least one.
    /// - Returns: The created geofences, in order.
    public func createGeofences(_ geofences: [GeofenceDefinition]) async throws -> [Geofence] {
        guard !geofences.isEmpty else {
            throw HyperTrackAPIError(code: .invalidRequest, reason: "at least one geofence is required")
        }
        return try await self.send(
            .POST,
            self.target(["geofences"]),
            json: geofences,
            as: [Geofence].self,
            repeatability: .once
        )
    }

    /// Reads an account geofence (`GET /geofences/{geofence_id}`).
    /// - Parameter id: The geofence.
    public func geofence(id: String) async throws -> Geofence {
        try self.requireID(id, "geofence id")
        return try await self.get(self.target(["geofences", id]), as: Geofence.self)
    }

    /// Replaces an account geofence's metadata (`PATCH /geofences/{geofence_id}`).
    /// - Parameters:
    ///   - id: The geofence.
    ///   - metadata: The new metadata.
    public func updateGeofence(id: String, metadata: [String: JSONValue]) async throws {
        try self.requireID(id, "geofence id")
        let body = try self.encode(MetadataBody(metadata: metadata))
        _ = try await self.send(.PATCH, self.target(["geofences", id]), body: body, repeatability: .safe)
    }

    /// Deletes an account geofence (`DELETE /geofences/{geofence_id}`).
    /// - Parameter id: The geofence.
    public func deleteGeofence(id: String) async throws {
        try self.requireID(id, "geofence id")
        _ = try await self.send(.DELETE, self.target(["geofences", id]), body: nil, repeatability: .safe)
    }
}
