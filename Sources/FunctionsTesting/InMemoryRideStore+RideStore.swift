import Foundation
import Functions
import HyperTrackAPI

extension InMemoryRideStore {
    public func order(id: UUID) async throws -> OrderRow? { self.state.orders[id] }

    /// Actor isolation already serialises every call, so this is `order(id:)`.
    public func lockOrder(id: UUID) async throws -> OrderRow? { self.state.orders[id] }

    public func deviceID(ofDriver driverID: UUID) async throws -> String? { self.state.drivers[driverID]?.deviceID }

    public func leg(orderID: UUID, kind: LegKind) async throws -> LegRecord? {
        self.state.legs.first { $0.record.orderID == orderID && $0.record.kind == kind }?.record
    }

    public func leg(tripID: String) async throws -> LegRecord? {
        self.state.legs.first { $0.record.tripID == tripID }?.record
    }

    public func legs(orderID: UUID) async throws -> [LegRecord] {
        self.state.legs.filter { $0.record.orderID == orderID }.map(\.record)
    }

    public func recordLeg(_ leg: NewLeg) async throws -> Bool {
        try self.check(.recordLeg)
        guard
            !self.state.legs.contains(where: {
                ($0.record.orderID == leg.orderID && $0.record.kind == leg.kind) || $0.record.tripID == leg.trip.tripID
            })
        else { return false }
        let record = LegRecord(
            id: UUID(),
            orderID: leg.orderID,
            kind: leg.kind,
            deviceID: leg.trip.deviceID,
            tripID: leg.trip.tripID,
            status: .active
        )
        self.state.legs.append(StoredLeg(record: record, trip: leg.trip, arrivedAt: nil))
        return true
    }

    public func moveOrder(id: UUID, from: OrderStatus, to: OrderStatus) async throws -> Bool {
        try self.check(.moveOrder)
        guard from.canMove(to: to) else { throw InMemoryRideStoreError.illegalTransition(from: from, to: to) }
        guard self.state.orders[id]?.status == from else { return false }
        self.state.orders[id]?.status = to
        return true
    }

    public func markLegsForCompletion(orderID: UUID, kinds: Set<LegKind>) async throws -> Int {
        try self.check(.markLegsForCompletion)
        var marked = 0
        for index in self.state.legs.indices
        where self.state.legs[index].record.orderID == orderID && kinds.contains(self.state.legs[index].record.kind)
            && self.state.legs[index].record.status == .active
        {
            self.state.legs[index].record.status = .completing
            marked += 1
        }
        return marked
    }

    public func markLegCompleted(id: UUID) async throws -> Bool {
        try self.check(.markLegCompleted)
        guard let index = self.state.legs.firstIndex(where: { $0.record.id == id }),
            self.state.legs[index].record.status == .completing
        else { return false }
        self.state.legs[index].record.status = .completed
        return true
    }

    public func recordArrival(legID: UUID, at date: Date) async throws {
        try self.check(.recordArrival)
        guard let index = self.state.legs.firstIndex(where: { $0.record.id == legID }) else { return }
        if self.state.legs[index].arrivedAt == nil { self.state.legs[index].arrivedAt = date }
    }

    public func recordLegSummary(legID: UUID, summary: LegSummary) async throws {
        try self.check(.recordLegSummary)
        guard let index = self.state.legs.firstIndex(where: { $0.record.id == legID }) else { return }
        self.state.legs[index].record.summary = summary
        self.state.legs[index].record.status = .completed
    }

    public func setOrderSummary(orderID: UUID, summary: OrderSummary) async throws {
        try self.check(.setOrderSummary)
        self.state.orders[orderID]?.summary = summary
    }

    /// Clamped to the store's clock like the database clamps to `now()`.
    public func updateDriverPosition(
        deviceID: String,
        latitude: Double,
        longitude: Double,
        recordedAt: Date
    ) async throws -> Bool {
        try self.check(.updateDriverPosition)
        guard let driver = self.state.drivers.values.first(where: { $0.deviceID == deviceID }) else { return false }
        let recordedAt = min(recordedAt, self.now)
        if let current = driver.position, current.recordedAt >= recordedAt { return false }
        self.state.drivers[driver.id]?.position = Position(
            latitude: latitude,
            longitude: longitude,
            recordedAt: recordedAt
        )
        return true
    }

    public func setDeviceStatus(deviceID: String, status: String, at date: Date) async throws -> Bool {
        try self.check(.setDeviceStatus)
        guard ["active", "inactive", "disconnected"].contains(status),
            let driver = self.state.drivers.values.first(where: { $0.deviceID == deviceID })
        else { return false }
        let date = min(date, self.now)
        if let current = driver.deviceStatus, current.at > date { return false }
        self.state.drivers[driver.id]?.deviceStatus = (status, date)
        return true
    }

    public func nearestAvailableDrivers(
        near point: Coordinate,
        radius: Double,
        limit: Int,
        search: DriverSearch
    ) async throws -> [UUID] {
        // As PostgreSQL's search does: the nearest positions in reach first (at most DriverSearch.scannedPositions),
        // then the filters.
        let nearest = self.state.drivers.values.compactMap { driver -> (Driver, Double)? in
            guard let position = driver.position else { return nil }
            let distance = Self.distance(point, Coordinate(latitude: position.latitude, longitude: position.longitude))
            return distance <= radius ? (driver, distance) : nil
        }
        .sorted { ($0.1, $0.0.id.uuidString) < ($1.1, $1.0.id.uuidString) }
        .prefix(DriverSearch.scannedPositions)
        return nearest.filter { driver, _ in
            guard self.isDispatchable(driver, search: search), let position = driver.position else { return false }
            return self.now.timeIntervalSince(position.recordedAt) <= search.maxPositionAge.secondsValue
        }
        .prefix(limit).map(\.0.id)
    }

    public func availableDrivers(deviceIDs: [String], search: DriverSearch) async throws -> [String: UUID] {
        var result: [String: UUID] = [:]
        for driver in self.state.drivers.values
        where deviceIDs.contains(driver.deviceID) && self.isDispatchable(driver, search: search) {
            result[driver.deviceID] = driver.id
        }
        return result
    }

    public func recordOffers(orderID: UUID, driverIDs: [UUID], round: Int?, ttl: Duration) async throws {
        let round = round ?? max(self.state.dispatchRounds[orderID] ?? 0, 1)
        try self.check(.recordOffers)
        var offers = self.state.offers[orderID] ?? []
        for driver in driverIDs where !offers.contains(where: { $0.driverID == driver }) {
            offers.append(Offer(driverID: driver, round: round, expiresAt: self.now + ttl.secondsValue))
        }
        self.state.offers[orderID] = offers
    }

    public func startDispatchRound(orderID: UUID) async throws -> Int? {
        try self.check(.startDispatchRound)
        guard self.state.orders[orderID]?.status == .new else { return nil }
        let round = (self.state.dispatchRounds[orderID] ?? 0) + 1
        self.state.dispatchRounds[orderID] = round
        return round
    }

    public func openOffersExpiry(orderID: UUID) async throws -> Date? {
        (self.state.offers[orderID] ?? []).filter { self.isOpen($0) }.map(\.expiresAt).max()
    }

    public func lastOfferedRound(orderID: UUID) async throws -> Int {
        (self.state.offers[orderID] ?? []).map(\.round).max() ?? 0
    }

    public func cancelUnmatched(orderID: UUID) async throws -> Bool {
        try self.check(.cancelUnmatched)
        guard self.state.orders[orderID]?.status == .new else { return false }
        self.state.orders[orderID]?.status = .cancelled
        self.state.orders[orderID]?.cancellationReason = OrderRow.noDriverFound
        return true
    }

    public func waitingOrders(forDriver driverID: UUID, radius: Double, limit: Int, search: DriverSearch)
        async throws -> [UUID]
    {
        guard let driver = self.state.drivers[driverID], self.isDispatchable(driver, search: DriverSearch()),
            let position = driver.position,
            self.now.timeIntervalSince(position.recordedAt) <= search.maxPositionAge.secondsValue
        else { return [] }
        let here = Coordinate(latitude: position.latitude, longitude: position.longitude)
        let waiting = self.state.orders.values.compactMap { order -> (UUID, Double)? in
            guard order.status == .new, !(self.state.offers[order.id] ?? []).contains(where: { $0.driverID == driverID })
            else { return nil }
            let distance = Self.distance(here, order.pickup.coordinate)
            return distance <= radius ? (order.id, distance) : nil
        }
        return waiting.sorted { ($0.1, $0.0.uuidString) < ($1.1, $1.0.uuidString) }.prefix(limit).map(\.0)
    }

    public func webhookEvent(id: Int64) async throws -> WebhookEventRow? {
        guard var event = self.state.webhookEvents[id] else { return nil }
        event.outcome = self.state.outcomes[id] ?? event.outcome
        return event
    }

    /// The twin knows no creation or completion times of legs: an active leg is overdue once its trip's estimated
    /// arrival is more than `margin` before the store's clock (a trip without an estimate at once), and a completed
    /// leg without a summary at once; inbox events do not count.
    public func overdueLegs(margin: Duration, recheck: Duration, limit: Int) async throws -> [LegRecord] {
        var due: [LegRecord] = []
        for leg in self.state.legs where due.count < limit {
            if let checked = self.state.legsCheckedAt[leg.record.id], checked > self.now - recheck.secondsValue {
                continue
            }
            let status = self.state.orders[leg.record.orderID]?.status
            let driving = (leg.record.kind == .pickup && status == .pickingUp)
                || (leg.record.kind == .dropoff && status == .droppingOff)
            let eta = leg.trip.estimate?.arriveAt ?? .distantPast
            let overdueArrival = leg.record.status == .active && leg.arrivedAt == nil && driving
                && eta < self.now - margin.secondsValue
            let missingSummary = leg.record.status == .completed && leg.record.summary == nil
            if overdueArrival || missingSummary {
                self.state.legsCheckedAt[leg.record.id] = self.now
                due.append(leg.record)
            }
        }
        return due
    }

    public func setWebhookOutcome(eventID: Int64, outcome: String) async throws {
        try self.check(.setWebhookOutcome)
        self.state.outcomes[eventID] = outcome
    }

    public func waitingWebhookEvents(tripID: String) async throws -> [(id: Int64, outcome: String)] {
        try self.check(.waitingWebhookEvents)
        return self.state.webhookEvents.values.filter { $0.tripID == tripID }.map(\.id).sorted().compactMap { id in
            guard let outcome = self.state.outcomes[id], outcome.hasPrefix(OnTripWebhook.waitingPrefix) else { return nil }
            return (id: id, outcome: outcome)
        }
    }

    private func isDispatchable(_ driver: Driver, search: DriverSearch) -> Bool {
        guard self.isAvailable(driver) else { return false }
        if let status = driver.deviceStatus?.value, status != "active" { return false }
        if let order = search.excludingOffersOf,
            (self.state.offers[order] ?? []).contains(where: { $0.driverID == driver.id })
        {
            return false
        }
        return true
    }

    private func isAvailable(_ driver: Driver) -> Bool {
        driver.available
            && !self.state.orders.values.contains {
                $0.driverID == driver.id && ![.new, .completed, .cancelled].contains($0.status)
            }
    }

    /// Great-circle distance in metres on the sphere `earthdistance` uses (radius 6378168 m).
    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians
        let dLng = (b.longitude - a.longitude) * radians
        let h =
            sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLng / 2)
            * sin(dLng / 2)
        return 2 * 6_378_168 * asin(min(1, sqrt(h)))
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`.
    var secondsValue: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
