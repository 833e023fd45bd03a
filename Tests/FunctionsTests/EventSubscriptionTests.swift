import Foundation
import Synchronization
import Testing

@testable import Functions

/// A stream's bounded buffer: what a slow client costs, heartbeats and the maximum duration.
@Suite("Functions: event subscriptions")
struct EventSubscriptionTests {
    static func event(_ position: Int64, rider: UUID) -> OrderEvent {
        OrderEvent(
            position: position,
            orderID: UUID(),
            kind: .orderStatus,
            riderID: rider,
            driverID: nil,
            payload: "{}"
        )
    }

    @Test("a client that falls a buffer behind is closed as a slow consumer, and its buffer dropped")
    func slowConsumer() async {
        let rider = UUID()
        let subscription = EventSubscription(
            id: 1,
            scope: .caller(rider),
            capacity: 3,
            deadline: .now + .seconds(3600)
        )
        for position in 1...3 { subscription.push(Self.event(Int64(position), rider: rider)) }
        guard case .event(let first) = await subscription.next() else {
            Issue.record("the first event")
            return
        }
        #expect(first.position == 1)
        subscription.push(Self.event(4, rider: rider))
        subscription.push(Self.event(5, rider: rider))
        #expect(await subscription.next() == .closed(.slowConsumer))
        #expect(await subscription.next() == .closed(.slowConsumer), "closed stays closed")
    }

    @Test("a reader within the buffer gets every event in order")
    func inOrder() async {
        let rider = UUID()
        let subscription = EventSubscription(id: 1, scope: .caller(rider), capacity: 3, deadline: .now + .seconds(60))
        var positions: [Int64] = []
        for position in 1...10 {
            subscription.push(Self.event(Int64(position), rider: rider))
            if case .event(let event) = await subscription.next() { positions.append(event.position) }
        }
        #expect(positions == Array(1...10))
    }

    @Test("the hub's clock sends heartbeats to idle streams and ends them at their deadline")
    func clock() async {
        let subscription = EventSubscription(id: 1, scope: .caller(UUID()), capacity: 3, deadline: .now + .seconds(60))
        subscription.tick(now: .now, heartbeat: .seconds(15))
        subscription.tick(now: .now + .seconds(16), heartbeat: .seconds(15))
        #expect(await subscription.next() == .heartbeat)
        subscription.tick(now: .now + .seconds(61), heartbeat: .seconds(15))
        #expect(await subscription.next() == .closed(.timeout))
    }

    @Test(
        "scopes: a caller reads their own orders' events; an order's stream only that order's; the share page no offers"
    )
    func scopes() {
        let (rider, driver, stranger, order) = (UUID(), UUID(), UUID(), UUID())
        let status = OrderEvent(
            position: 1,
            orderID: order,
            kind: .orderStatus,
            riderID: rider,
            driverID: driver,
            payload: "{}"
        )
        let offer = OrderEvent(
            position: 2,
            orderID: order,
            kind: .offerNew,
            riderID: nil,
            driverID: driver,
            payload: "{}"
        )
        #expect(OrderEventScope.caller(rider).includes(status))
        #expect(!OrderEventScope.caller(rider).includes(offer))
        #expect(OrderEventScope.caller(driver).includes(offer))
        #expect(!OrderEventScope.caller(stranger).includes(status))
        #expect(OrderEventScope.order(order, caller: rider).includes(status))
        #expect(!OrderEventScope.order(UUID(), caller: rider).includes(status))
        #expect(!OrderEventScope.order(order, caller: stranger).includes(status))
        #expect(OrderEventScope.share(order, tokenHash: "h").includes(status))
        #expect(!OrderEventScope.share(order, tokenHash: "h").includes(offer))
    }
}

/// An event's rendered frames, kept with one read of it for every stream the hub hands it to.
@Suite("Functions: an event's frames")
struct OrderEventFramesTests {
    @Test("the hub's copies of an event render once per kind of stream; a failed rendering is not kept")
    func renderedOncePerKind() throws {
        let event = EventSubscriptionTests.event(7, rider: UUID())
        let copy = event
        let renders = Mutex(0)
        let render = { (text: String) in
            { () -> String in
                renders.withLock { $0 += 1 }
                return text
            }
        }
        #expect(event.frames.frame(share: false, render: render("party")) == "party")
        #expect(copy.frames.frame(share: false, render: render("again")) == "party", "a copy shares the frame")
        #expect(copy.frames.frame(share: true, render: render("share")) == "share")
        #expect(event.frames.frame(share: true, render: render("again")) == "share")
        #expect(renders.withLock { $0 } == 2)

        struct Undecodable: Error {}
        let other = EventSubscriptionTests.event(8, rider: UUID())
        #expect(throws: Undecodable.self) { try other.frames.frame(share: false) { throw Undecodable() } }
        #expect(other.frames.frame(share: false, render: render("later")) == "later")

        // Another read of the same row (a replay) is equal, and renders for itself.
        let reread = OrderEvent(
            position: event.position,
            orderID: event.orderID,
            kind: event.kind,
            riderID: event.riderID,
            driverID: event.driverID,
            payload: event.payload
        )
        #expect(reread == event && reread.hashValue == event.hashValue)
        #expect(reread.frames.frame(share: false, render: render("own")) == "own")
    }
}
