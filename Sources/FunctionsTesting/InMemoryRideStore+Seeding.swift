import Foundation
import Functions
import HyperTrackAPI

extension InMemoryRideStore {
    /// Adds (or replaces) an order, as an insert would.
    public func addOrder(_ order: OrderRow) {
        self.state.orders[order.id] = order
    }

    /// Removes an order, as a delete would; its legs stay, like the table's.
    public func removeOrder(id: UUID) {
        self.state.orders[id] = nil
        self.state.offers[id] = nil
    }

    /// Sets an order's status directly, bypassing the state machine (to stage a test).
    public func setStatus(_ status: OrderStatus, ofOrder id: UUID) {
        self.state.orders[id]?.status = status
    }

    /// Adds a driver.
    public func addDriver(
        id: UUID,
        deviceID: String,
        available: Bool = true,
        position: (latitude: Double, longitude: Double)? = nil,
        recordedAt: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) {
        self.state.drivers[id] = Driver(
            id: id,
            deviceID: deviceID,
            available: available,
            position: position.map { Position(latitude: $0.latitude, longitude: $0.longitude, recordedAt: recordedAt) }
        )
    }

    /// Adds a recorded leg directly (to stage a test).
    @discardableResult
    public func addLeg(orderID: UUID, kind: LegKind, trip: Trip, status: LegStatus = .active) -> LegRecord {
        let record = LegRecord(
            id: UUID(),
            orderID: orderID,
            kind: kind,
            deviceID: trip.deviceID,
            tripID: trip.tripID,
            status: status
        )
        self.state.legs.append(StoredLeg(record: record, trip: trip, arrivedAt: nil))
        return record
    }

    /// The order as stored.
    public func storedOrder(id: UUID) -> OrderRow? { self.state.orders[id] }

    /// Every leg, in recording order.
    public var storedLegs: [StoredLeg] { self.state.legs }

    /// The order's summary, once set.
    public func summary(ofOrder id: UUID) -> OrderSummary? { self.state.orders[id]?.summary }

    /// The drivers the order was offered to, in rank order.
    public func offers(ofOrder id: UUID) -> [UUID] { (self.state.offers[id] ?? []).map(\.driverID) }

    /// The order's offers with their rounds, expiries and declines, in rank order.
    public func offerRecords(ofOrder id: UUID) -> [Offer] { self.state.offers[id] ?? [] }

    /// How many dispatch rounds ran for the order.
    public func dispatchRounds(ofOrder id: UUID) -> Int { self.state.dispatchRounds[id] ?? 0 }

    /// A driver as stored.
    public func driver(id: UUID) -> Driver? { self.state.drivers[id] }

    /// The outcome written on an inbox event.
    public func webhookOutcome(eventID: Int64) -> String? { self.state.outcomes[eventID] }
}
