import Foundation

/// What an app reads of an `order.status` event: the order's id and status, typed. A `JSONValue` tree of the whole
/// order cost ~150 µs an event (37th session, an 881-byte order), and every ride sends its driver seven.
struct OrderStatusEvent: Decodable {
    struct Order: Decodable {
        var id: String?
        var status: String?
    }
    var order: Order?
}

extension CitySimulation {
    /// A rider following the ride live, as the rider app does (``Configuration/riderStreams``): holds
    /// `GET /v1/orders/{id}/events` from the booking's reply until the order's final status arrives on it, reading
    /// every event (the driver's positions, each status); a stream that fails or that the server ends is reopened
    /// after the last event id seen, a failure after the drivers' back-off (``reconnectFirstCap``).
    func follow(_ order: String, rider: Int, token: String, events: EventStreamClient) async {
        var lastEventID: String?
        var opened = false
        var pickingUpSeen = false
        var random = SeededGenerator(seed: self.configuration.seed, stream: 5_000_000 + UInt64(rider))
        var cap = Self.reconnectFirstCap
        while !Task.isCancelled {
            do {
                try await self.recorder.activity.during("a rider's event stream") {
                    try await events.listen(path: "/v1/orders/\(order)/events", token: token, lastEventID: lastEventID)
                    { event, arrived in
                        cap = Self.reconnectFirstCap
                        if !opened {
                            opened = true
                            self.recorder.riderStreamOpened()
                        }
                        if let id = event.id { lastEventID = id }
                        // Comments (the connection's opening and heartbeats) have no name.
                        guard let name = event.name else { return }
                        var status: String?
                        if name == "order.status" {
                            status = try JSONDecoder().decode(OrderStatusEvent.self, from: Data(event.data.utf8))
                                .order?.status
                        }
                        let pickingUp = !pickingUpSeen && status == "PICKING_UP"
                        if pickingUp { pickingUpSeen = true }
                        self.recorder.riderEvent(name, order: order, pickingUpAt: pickingUp ? arrived : nil)
                        if status == "COMPLETED" || status == "CANCELLED" { throw RideFollowed() }
                    }
                }
            } catch is RideFollowed {
                self.recorder.riderSawTheEnd()
                return
            } catch {
                if Task.isCancelled { return }
                self.recorder.error("rider \(rider) stream: \(error)")
                // The app's reconnect back-off: its own clock.
                try? await Task.sleep(for: .seconds(Double.random(in: 0...cap, using: &random)))
                cap = min(cap * 2, Self.reconnectLastCap)
            }
        }
    }

    /// Ends a rider's stream once the ride's final status arrived on it.
    private struct RideFollowed: Error {}
}
