import Foundation
import HyperTrackAPI
import Logging

/// Creates the trip of an order leg at most once, across retries and crashes (design: "Idempotent effects").
///
/// 1. A recorded leg wins. 2. Otherwise an active trip of the device whose metadata is `{order_id, leg}` of this leg
/// is adopted (a previous attempt created it but never committed). 3. Otherwise the trip is created. The leg is
/// recorded in the caller's transaction.
struct TripLegs: Sendable {
    let tracking: any TripTracking
    let destinationRadius: Int

    enum Outcome: Equatable {
        case recorded
        case adopted
        case created
    }

    /// How long the next attempt waits after a create that got no answer: longer than HyperTrack takes to finish
    /// a request its caller gave up on (an assumption: no idempotency key exists for `POST /trips`).
    static let unansweredCreateWait: Duration = .seconds(15)

    /// The metadata that identifies a leg's trip.
    static func metadata(orderID: UUID, kind: LegKind) -> [String: JSONValue] {
        ["order_id": .string(orderID.uuidString.lowercased()), "leg": .string(kind.rawValue)]
    }

    /// Whether `trip` was made for this leg.
    static func matches(_ trip: Trip, orderID: UUID, kind: LegKind) -> Bool {
        guard let metadata = trip.metadata,
            let order = metadata["order_id"]?.stringValue, let leg = metadata["leg"]?.stringValue
        else { return false }
        return order.lowercased() == orderID.uuidString.lowercased() && leg == kind.rawValue
    }

    /// Returns how the leg got its trip, and the trip.
    @discardableResult
    func ensureTrip(
        orderID: UUID,
        kind: LegKind,
        deviceID: String,
        destination: OrderRow.Place,
        store: any RideStore,
        logger: Logger
    ) async throws -> (outcome: Outcome, tripID: String) {
        if let recorded = try await store.leg(orderID: orderID, kind: kind) {
            logger.debug("leg already has a recorded trip", metadata: ["leg": "\(kind.rawValue)"])
            return (.recorded, recorded.tripID)
        }
        let trip: Trip
        let outcome: Outcome
        let active = try await self.tracking.activeTrips(deviceID: deviceID)
        if let existing = active.first(where: { Self.matches($0, orderID: orderID, kind: kind) }) {
            trip = existing
            outcome = .adopted
        } else {
            do {
                trip = try await self.tracking.createTrip(
                    CreateTripRequest(
                        deviceID: deviceID,
                        destination: .init(point: destination.coordinate, radius: self.destinationRadius),
                        metadata: Self.metadata(orderID: orderID, kind: kind)
                    )
                )
            } catch var error as HyperTrackAPIError where error.code == .transport {
                // No answer (a timeout, a reset): HyperTrack may still create the trip after the client gave up.
                // Retried at once, step 2 would look before that late trip exists and create a second one (seen
                // under `simulate --chaos`: 3 s of latency against a 2 s timeout made 4 duplicate trips in 200
                // rides). The next attempt waits until the late trip, if any, is there to be adopted.
                error.retryAfter = max(error.retryAfter ?? .zero, Self.unansweredCreateWait)
                throw error
            }
            outcome = .created
        }
        _ = try await store.recordLeg(NewLeg(orderID: orderID, kind: kind, trip: trip))
        logger.info(
            "recorded leg trip",
            metadata: ["leg": "\(kind.rawValue)", "hypertrack.trip_id": "\(trip.tripID)", "outcome": "\(outcome)"]
        )
        return (outcome, trip.tripID)
    }
}
