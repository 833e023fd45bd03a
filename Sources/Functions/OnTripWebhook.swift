import Foundation
import HyperTrackAPI
import Logging
import TriggerRuntime

/// `onTripWebhook`: handles one event of the webhook inbox.
///
/// - `trip`/`destination_arrival`: records the arrival; the pickup leg moves `PICKING_UP → REACHED_PICKUP`, the
///   dropoff leg `DROPPING_OFF → REACHED_DROPOFF`. Both moves are conditional, so a late or repeated event never
///   moves an order backwards (or forwards from the wrong leg).
/// - `trip`/`completed`: stores the leg's summary (from the event, or read from HyperTrack when the event has
///   none); once the dropoff leg has one and the order is `COMPLETED`, the order gets its summary and fare.
/// - `location`: moves the device's driver, unless a newer position is recorded.
/// - `device_status`: records whether the device is tracking (`active`) or not (`inactive`, `disconnected`);
///   dispatch offers orders only to tracking drivers.
/// - Anything else, and events for trips we do not know, are recorded (the inbox row stays) and ignored.
///
/// The outcome is written on the inbox row.
public struct OnTripWebhook: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "onTripWebhook"
    /// Fires on inbox inserts.
    public static var trigger: Trigger { .create("webhook_events") }

    private let tracking: any TripTracking
    private let stores: RideStoreFactory
    private let tariff: Tariff

    /// Creates the function.
    /// - Parameters:
    ///   - tracking: HyperTrack (read when a `completed` event carries no summary).
    ///   - stores: Where the function's store comes from.
    ///   - tariff: Prices the ride.
    public init(tracking: some TripTracking, stores: RideStoreFactory, tariff: Tariff) {
        self.tracking = tracking
        self.stores = stores
        self.tariff = tariff
    }

    public func handle(_ change: Change<WebhookEventRow>, context: FunctionContext) async throws {
        guard let event = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the inserted inbox row")
        }
        let store = try self.stores.store(for: context)
        let outcome: String
        switch (event.type, event.value) {
        case ("trip", "destination_arrival"):
            outcome = try await self.arrival(event, store: store, at: event.recordedAt ?? context.commitTime)
        case ("trip", "completed"):
            outcome = try await self.completion(event, store: store)
        case ("location", _):
            outcome = try await self.location(event, store: store)
        case ("device_status", _):
            outcome = try await self.deviceStatus(event, store: store, at: event.recordedAt ?? context.commitTime)
        default:
            outcome = "ignored: \(event.type)\(event.value.map { "/\($0)" } ?? "") is not handled"
        }
        try await store.setWebhookOutcome(eventID: event.id, outcome: outcome)
        context.logger.info("webhook event handled", metadata: ["outcome": "\(outcome)", "type": "\(event.type)"])
    }

    private func arrival(_ event: WebhookEventRow, store: any RideStore, at date: Date) async throws -> String {
        guard let tripID = event.tripID, let leg = try await store.leg(tripID: tripID) else {
            return "ignored: unknown trip"
        }
        try await store.recordArrival(legID: leg.id, at: date)
        let (from, to): (OrderStatus, OrderStatus) =
            switch leg.kind {
            case .pickup: (.pickingUp, .reachedPickup)
            case .dropoff: (.droppingOff, .reachedDropoff)
            }
        if try await store.moveOrder(id: leg.orderID, from: from, to: to) {
            return "applied: \(from.rawValue) -> \(to.rawValue)"
        }
        let current = try await store.order(id: leg.orderID)?.status.rawValue ?? "deleted"
        return "ignored: order is \(current), not \(from.rawValue)"
    }

    private func completion(_ event: WebhookEventRow, store: any RideStore) async throws -> String {
        guard let tripID = event.tripID, let leg = try await store.leg(tripID: tripID) else {
            return "ignored: unknown trip"
        }
        var summary = event.summary
        if summary == nil, let fetched = try await self.tracking.trip(id: tripID).summary {
            summary = LegSummary(fetched)
        }
        guard let summary else { return "ignored: completed trip has no summary yet" }
        // Both legs' summaries may arrive at once: lock the order so the later one sees the earlier one's leg.
        let order = try await store.lockOrder(id: leg.orderID)
        try await store.recordLegSummary(legID: leg.id, summary: summary)
        let legs = try await store.legs(orderID: leg.orderID)
        guard let dropoff = legs.first(where: { $0.kind == .dropoff })?.summary else {
            return "applied: \(leg.kind.rawValue) summary"
        }
        guard order?.status == .completed else {
            return "applied: \(leg.kind.rawValue) summary (order not completed, no fare)"
        }
        let pickup = legs.first(where: { $0.kind == .pickup })?.summary
        try await store.setOrderSummary(
            orderID: leg.orderID,
            summary: OrderSummary(pickup: pickup, dropoff: dropoff, tariff: self.tariff)
        )
        return "applied: \(leg.kind.rawValue) summary, order summary and fare"
    }

    private func location(_ event: WebhookEventRow, store: any RideStore) async throws -> String {
        guard let deviceID = event.deviceID, let latitude = event.latitude, let longitude = event.longitude,
            let recordedAt = event.recordedAt
        else { return "ignored: location without device, position or time" }
        let moved = try await store.updateDriverPosition(
            deviceID: deviceID,
            latitude: latitude,
            longitude: longitude,
            recordedAt: recordedAt
        )
        return moved ? "applied: position" : "ignored: unknown device or a newer position is recorded"
    }

    private func deviceStatus(_ event: WebhookEventRow, store: any RideStore, at date: Date) async throws -> String {
        guard let deviceID = event.deviceID, let value = event.value else {
            return "ignored: device_status without device or value"
        }
        guard ["active", "inactive", "disconnected"].contains(value) else {
            return "ignored: device_status \(value) is not a tracking state"
        }
        let changed = try await store.setDeviceStatus(deviceID: deviceID, status: value, at: date)
        return changed ? "applied: device \(value)" : "ignored: unknown device or a newer status is recorded"
    }
}
