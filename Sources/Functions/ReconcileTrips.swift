import Foundation
import HyperTrackAPI
import Logging
import TriggerRuntime

/// `reconcileTrips`: webhooks are a hint, HyperTrack's state is the truth. Every minute it asks HyperTrack
/// (`GET /trips/{id}`) about the legs whose expected event is overdue (``RideStore/overdueLegs(margin:recheck:limit:)``)
/// and applies what it finds, exactly as the webhook would have: the arrival (`PICKING_UP → REACHED_PICKUP`,
/// `DROPPING_OFF → REACHED_DROPOFF`) and the completion with its summary and the fare.
///
/// Quiet when webhooks work: a leg is asked about only after its ETA plus ``margin`` passed with no event for its
/// trip, and then at most every ``recheck``. Rate-limited: at most ``legsPerTick`` trips a minute per worker tick
/// (one schedule, so one tick at a time across workers), oldest legs first; the rest wait for the next tick.
public struct ReconcileTrips: ScheduledFunction {
    /// The persisted name.
    public static let name: FunctionName = "reconcileTrips"
    /// Every minute.
    public static var schedule: Schedule { .every(.seconds(60)) }
    /// A slow or failing HyperTrack must not hold the tick's transaction for long.
    public static var options: FunctionOptions { FunctionOptions(timeout: .seconds(50)) }
    /// How long after a leg's ETA (or creation) without an event it counts as overdue.
    public static let margin: Duration = .seconds(120)
    /// How long before an overdue leg is asked about again.
    public static let recheck: Duration = .seconds(120)
    /// How many legs one tick asks about.
    public static let legsPerTick = 30

    private let tracking: any TripTracking
    private let stores: RideStoreFactory
    private let events: OnTripWebhook

    /// Creates the function.
    /// - Parameters:
    ///   - tracking: HyperTrack.
    ///   - stores: Where the function's store comes from.
    ///   - tariff: Prices the ride.
    public init(tracking: some TripTracking, stores: RideStoreFactory, tariff: Tariff) {
        self.tracking = tracking
        self.stores = stores
        self.events = OnTripWebhook(tracking: tracking, stores: stores, tariff: tariff)
    }

    public func run(_ tick: ScheduleTick, context: FunctionContext) async throws {
        let store = try self.stores.store(for: context)
        let legs = try await store.overdueLegs(margin: Self.margin, recheck: Self.recheck, limit: Self.legsPerTick)
        var applied = 0
        for leg in legs {
            let trip: Trip
            do {
                trip = try await self.tracking.trip(id: leg.tripID)
            } catch {
                // One unreadable trip must not stop the others; it is asked about again after `recheck`.
                context.logger.warning(
                    "reconciler could not read a trip", metadata: ["trip_id": "\(leg.tripID)", "error": "\(error)"]
                )
                continue
            }
            if let outcome = try await self.reconcile(leg, with: trip, store: store, at: context.commitTime) {
                applied += 1
                context.logger.notice(
                    "reconciled a leg whose webhook never came",
                    metadata: ["trip_id": "\(leg.tripID)", "leg": "\(leg.kind.rawValue)", "outcome": "\(outcome)"]
                )
            }
        }
        if !legs.isEmpty {
            context.logger.info("reconciler tick", metadata: ["legs": "\(legs.count)", "applied": "\(applied)"])
        }
    }

    /// Applies the trip's arrival and completion that the backend has not seen; returns what it did, if anything.
    func reconcile(_ leg: LegRecord, with trip: Trip, store: any RideStore, at now: Date) async throws -> String? {
        var done: [String] = []
        if leg.status == .active, let arrivedAt = trip.destination?.arrivedAt {
            let event = WebhookEventRow(
                id: 0, messageID: "reconciler", eventIndex: 0, type: "trip", value: "destination_arrival",
                deviceID: trip.deviceID, tripID: trip.tripID, recordedAt: arrivedAt
            )
            let outcome = try await self.events.arrival(event, store: store, at: arrivedAt)
            if outcome.hasPrefix("applied") { done.append(outcome) }
        }
        if leg.summary == nil, trip.status == .completed, let summary = trip.summary {
            let event = WebhookEventRow(
                id: 0, messageID: "reconciler", eventIndex: 0, type: "trip", value: "completed",
                deviceID: trip.deviceID, tripID: trip.tripID, recordedAt: trip.completedAt ?? now,
                summary: LegSummary(summary)
            )
            let outcome = try await self.events.completion(event, store: store)
            if outcome.hasPrefix("applied") { done.append(outcome) }
        }
        return done.isEmpty ? nil : done.joined(separator: "; ")
    }
}
