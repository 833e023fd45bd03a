import Foundation
import Functions
import HyperTrackAPI
import Synchronization

/// A recording, scriptable stand-in for HyperTrack.
///
/// It keeps trips like the service does (created active, completed on `completeTrip`, already completed counts as
/// success, unknown trips throw), records every call in order, can fail chosen operations on cue, and streams its
/// calls so a test can wait for one instead of sleeping.
///
/// ```swift
/// let tracking = FakeTripTracking()
/// tracking.fail(.createTrip, times: 1)
/// await #expect(throws: FakeTripTrackingError.self) { try await function.handle(change, context: .testing()) }
/// ```
public final class FakeTripTracking: TripTracking, Sendable {
    /// An operation of `TripTracking`.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        case createTrip, trip, completeTrip, activeTrips, updateDevice, nearbyDevices
    }

    /// A recorded call.
    public enum Call: Sendable, Hashable {
        case createTrip(CreateTripRequest)
        case trip(id: String)
        case completeTrip(id: String)
        case activeTrips(deviceID: String)
        case updateDevice(id: String, name: String?, metadata: [String: JSONValue]?)
        case nearbyDevices(NearbyRequest)

        /// The operation the call made.
        public var operation: Operation {
            switch self {
            case .createTrip: .createTrip
            case .trip: .trip
            case .completeTrip: .completeTrip
            case .activeTrips: .activeTrips
            case .updateDevice: .updateDevice
            case .nearbyDevices: .nearbyDevices
            }
        }
    }

    private struct State {
        var trips: [String: Trip] = [:]
        var tripOrder: [String] = []
        var calls: [Call] = []
        var failures: [Operation: [any Error]] = [:]
        var nearby: [NearbyDevice] = []
        var devices: [String: (name: String?, metadata: [String: JSONValue]?)] = [:]
        var continuations: [AsyncStream<Call>.Continuation] = []
        var nextTrip = 1
    }

    private let state = Mutex(State())

    /// Creates a fake with no trips.
    public init() {}

    /// Every call so far, in order.
    public var calls: [Call] { self.state.withLock { $0.calls } }

    /// The calls of one operation so far.
    public func calls(_ operation: Operation) -> [Call] { self.calls.filter { $0.operation == operation } }

    /// The trips the fake knows, in creation order.
    public var trips: [Trip] { self.state.withLock { state in state.tripOrder.compactMap { state.trips[$0] } } }

    /// What `updateDevice` last set for a device.
    public func device(_ id: String) -> (name: String?, metadata: [String: JSONValue]?)? {
        self.state.withLock { $0.devices[id] }
    }

    /// A stream of the calls made from now on (each stream sees every later call).
    public func callStream() -> AsyncStream<Call> {
        let (stream, continuation) = AsyncStream<Call>.makeStream()
        self.state.withLock { $0.continuations.append(continuation) }
        return stream
    }

    /// Makes the next `times` calls of `operation` throw `error` (after recording the call, before any effect).
    public func fail(_ operation: Operation, times: Int = 1, with error: any Error = FakeTripTrackingError.scripted) {
        self.state.withLock { $0.failures[operation, default: []] += Array(repeating: error, count: times) }
    }

    /// Adds a trip as if created earlier (for instance by an attempt that crashed before recording it).
    public func seed(_ trip: Trip) {
        self.state.withLock { state in
            if state.trips[trip.tripID] == nil { state.tripOrder.append(trip.tripID) }
            state.trips[trip.tripID] = trip
        }
    }

    /// The devices the next Nearby searches return, nearest first.
    public func setNearbyDevices(_ devices: [NearbyDevice]) {
        self.state.withLock { $0.nearby = devices }
    }

    public func createTrip(_ request: CreateTripRequest) async throws -> Trip {
        try self.begin(.createTrip(request))
        return self.state.withLock { state in
            let id = String(format: "trip-%04d", state.nextTrip)
            state.nextTrip += 1
            let trip = Trip(
                tripID: id,
                deviceID: request.deviceID,
                status: .active,
                startedAt: Date(timeIntervalSince1970: 1_800_000_000),
                views: .init(shareURL: "https://trck.at/\(id)", embedURL: "https://embed.example/\(id)"),
                metadata: request.metadata,
                destination: request.destination.map {
                    Trip.Destination(point: $0.point, radius: $0.radius.map(Double.init))
                },
                estimate: .init(distance: 1000, duration: 120, remainingDuration: 120)
            )
            state.trips[id] = trip
            state.tripOrder.append(id)
            return trip
        }
    }

    public func trip(id: String) async throws -> Trip {
        try self.begin(.trip(id: id))
        guard let trip = self.state.withLock({ $0.trips[id] }) else { throw FakeTripTrackingError.unknownTrip(id) }
        return trip
    }

    public func completeTrip(id: String) async throws {
        try self.begin(.completeTrip(id: id))
        try self.state.withLock { state in
            guard var trip = state.trips[id] else { throw FakeTripTrackingError.unknownTrip(id) }
            if trip.status != .completed {
                trip.status = .completed
                trip.completedAt = Date(timeIntervalSince1970: 1_800_000_600)
                state.trips[id] = trip
            }
        }
    }

    public func activeTrips(deviceID: String) async throws -> [Trip] {
        try self.begin(.activeTrips(deviceID: deviceID))
        return self.trips.filter { $0.deviceID == deviceID && $0.status == .active }
    }

    public func updateDevice(id: String, name: String?, metadata: [String: JSONValue]?) async throws {
        try self.begin(.updateDevice(id: id, name: name, metadata: metadata))
        self.state.withLock { state in
            let previous = state.devices[id]
            state.devices[id] = (name ?? previous?.name, metadata ?? previous?.metadata)
        }
    }

    public func nearbyDevices(
        _ request: NearbyRequest,
        deadline: ContinuousClock.Instant
    ) async throws
        -> [NearbyDevice]
    {
        try self.begin(.nearbyDevices(request))
        return self.state.withLock { $0.nearby }
    }

    /// Records the call, publishes it, and throws a scripted failure if one is queued.
    private func begin(_ call: Call) throws {
        let (continuations, failure) = self.state.withLock {
            state -> ([AsyncStream<Call>.Continuation], (any Error)?) in
            state.calls.append(call)
            var failure: (any Error)?
            if var queued = state.failures[call.operation], !queued.isEmpty {
                failure = queued.removeFirst()
                state.failures[call.operation] = queued
            }
            return (state.continuations, failure)
        }
        for continuation in continuations { continuation.yield(call) }
        if let failure { throw failure }
    }
}

/// Failures of `FakeTripTracking`.
public enum FakeTripTrackingError: Error, Sendable, Hashable {
    /// A failure scripted with `fail(_:times:with:)`.
    case scripted
    /// The trip does not exist (HyperTrack's 404).
    case unknownTrip(String)
}
