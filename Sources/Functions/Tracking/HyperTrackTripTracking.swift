import Foundation
import HyperTrackAPI
import Logging

/// ``TripTracking`` over the HyperTrack REST client: the plain calls, plus what the functions rely on that the API
/// does not promise (completing twice succeeds, active trips really are the device's, Nearby is polled to a
/// deadline).
///
/// ```swift
/// let client = try HyperTrackClient(configuration: .fromEnvironment(), httpClient: .shared, logger: logger)
/// let registry = Backend().registry(tracking: HyperTrackTripTracking(client: client, logger: logger))
/// ```
public struct HyperTrackTripTracking: TripTracking {
    /// The client the calls go through.
    public let client: HyperTrackClient
    private let logger: Logger

    /// Creates the adapter.
    /// - Parameters:
    ///   - client: The HyperTrack client.
    ///   - logger: Notes a completion that found the trip already completed.
    public init(client: HyperTrackClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func createTrip(_ request: CreateTripRequest) async throws -> Trip {
        try await self.client.createTrip(request)
    }

    public func trip(id: String) async throws -> Trip {
        try await self.client.trip(id: id)
    }

    /// Completes a trip; a trip that is already completed or completing counts as success.
    ///
    /// When the service refuses the completion (any 4xx but 401, 404 and 429), the trip is read: if it is
    /// `processing_completion` or `completed` the call succeeds, otherwise the refusal is thrown. An unknown trip
    /// (404) throws.
    /// - Parameter id: The trip's id.
    public func completeTrip(id: String) async throws {
        do {
            try await self.client.requestTripCompletion(id: id)
        } catch let error as HyperTrackAPIError {
            guard error.code == .httpStatus, let status = error.status, (400..<500).contains(status),
                ![401, 404, 429].contains(status)
            else { throw error }
            let trip = try await self.client.trip(id: id)
            guard trip.status == .completed || trip.status == .processingCompletion else { throw error }
            self.logger.debug(
                "HyperTrack trip was already completed",
                metadata: ["hypertrack.trip_id": "\(id)", "http.status": "\(status)"]
            )
        }
    }

    /// The device's active trips: `GET /trips?status=active&device_id=…`, every page, filtered on the device and
    /// the status here too (the service may ignore `device_id`).
    /// - Parameter deviceID: The device.
    public func activeTrips(deviceID: String) async throws -> [Trip] {
        // An empty id would list every device's trips (the client's collection call), so refuse it as the client
        // refuses empty ids of single resources.
        guard !deviceID.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HyperTrackAPIError(code: .invalidRequest, reason: "device id must not be empty")
        }
        return try await self.client.trips(status: .active, deviceID: deviceID).all().filter {
            $0.deviceID == deviceID && $0.status == .active
        }
    }

    public func updateDevice(id: String, name: String?, metadata: [String: JSONValue]?) async throws {
        try await self.client.updateDevice(id: id, name: name, metadata: metadata)
    }

    /// Starts a Nearby request and polls it until it is `completed` or `deadline` passes, then returns the devices
    /// of the last poll, nearest first (by the service's `distance` when given, else by great-circle distance
    /// from the request's point; the service's order breaks ties).
    /// - Parameters:
    ///   - request: The search.
    ///   - deadline: When to stop polling and return what was found.
    public func nearbyDevices(
        _ request: NearbyRequest,
        deadline: ContinuousClock.Instant
    ) async throws
        -> [NearbyDevice]
    {
        let search = try await self.client.startNearby(request)
        var devices: [NearbyDevice]
        while true {
            let results = try await self.client.nearbyResults(search)
            devices = results.devices
            if results.status == .completed || ContinuousClock.now >= deadline { break }
            // The poll interval of HyperTrack's Nearby API, which answers a search only when asked again: this
            // sleep is the clock of the poll (bounded by the caller's deadline), not a wait for a local event.
            try await Task.sleep(
                until: min(ContinuousClock.now + self.client.configuration.nearbyPollInterval, deadline)
            )
        }
        return Self.nearestFirst(devices, from: request.location)
    }

    static func nearestFirst(_ devices: [NearbyDevice], from origin: Coordinate) -> [NearbyDevice] {
        let keyed = devices.enumerated().map { index, device in
            (device, device.distance ?? device.location.map { greatCircleMetres(origin, $0) } ?? .infinity, index)
        }
        return keyed.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.2 < $1.2 }.map(\.0)
    }

    static func greatCircleMetres(_ a: Coordinate, _ b: Coordinate) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians
        let dLon = (b.longitude - a.longitude) * radians
        let h =
            sin(dLat / 2) * sin(dLat / 2)
            + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_000 * asin(min(1, sqrt(h)))
    }
}
