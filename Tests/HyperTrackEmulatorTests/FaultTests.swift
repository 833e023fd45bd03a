import Foundation
import HyperTrackEmulator
import NIOHTTP1
import Testing

@Suite("Fault injection", .timeLimit(.minutes(10)))
struct FaultTests {
    @Test("http_error fails matching requests for `count` times, then the endpoint works again")
    func httpErrorCount() async throws {
        try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            let fault = try await client.post(
                "/_emulator/faults", #"{"kind":"http_error","method":"POST","path":"/trips","status":503,"count":2}"#)
            #expect(fault.status == 201)
            let statuses = [
                try await client.post("/trips", #"{"device_id":"D1"}"#).status,
                try await client.post("/trips/", #"{"device_id":"D1"}"#).status,
                try await client.post("/trips", #"{"device_id":"D1"}"#).status,
            ]
            #expect(statuses == [503, 503, 201])
            #expect(try await client.get("/trips").status == 200)  // GET did not match
            let all = try await client.get("/trips?status=all")
            #expect((all.object["data"] as? [[String: Any]])?.count == 1)  // failed calls changed nothing
        }
    }

    @Test("a rate below 1 fails a deterministic subset (same seed → same subset)")
    func rateIsSeeded() async throws {
        func pattern() async throws -> [Int] {
            try await withEmulator { emulator, client, _ in
                await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
                _ = try await client.post(
                    "/_emulator/faults", #"{"kind":"http_error","path":"/devices/*","status":500,"rate":0.5}"#)
                var statuses: [Int] = []
                for _ in 0..<20 { statuses.append(try await client.patch("/devices/D1", #"{"name":"n"}"#).status) }
                return statuses
            }
        }
        let first = try await pattern()
        #expect(first == (try await pattern()))
        #expect(first.contains(500) && first.contains(204))
    }

    @Test("rate_limit answers 429 with Retry-After and both error shapes")
    func rateLimit() async throws {
        try await withEmulator { _, client, _ in
            _ = try await client.post("/_emulator/faults", #"{"kind":"rate_limit","path":"/**","retry_after":7,"count":1}"#)
            let limited = try await client.get("/devices")
            #expect(limited.status == 429)
            #expect(limited.headers.first(name: "Retry-After") == "7")
            #expect(limited.object["title"] as? String == "Too Many Requests")
            #expect(limited.object["message"] as? String == "Too Many Requests")
            #expect(limited.object["code"] as? String == "too_many_requests")
            #expect(try await client.get("/devices").status == 200)
        }
    }

    @Test("latency delays the answer but not its content; DELETE clears faults")
    func latencyAndClear() async throws {
        try await withEmulator { _, client, _ in
            _ = try await client.post("/_emulator/faults", #"{"kind":"latency","path":"/devices","latency_ms":300}"#)
            let clock = ContinuousClock()
            let start = clock.now
            let slow = try await client.get("/devices")
            #expect(clock.now - start >= .milliseconds(300))  // a lower bound: sleeping never ends early
            #expect(slow.status == 200)
            let listed = try await client.get("/_emulator/faults")
            #expect((listed.object["data"] as? [[String: Any]])?.first?["fired"] as? Double == 1)
            #expect(try await client.delete("/_emulator/faults").status == 204)
            #expect((try await client.get("/_emulator/faults").object["data"] as? [[String: Any]])?.isEmpty == true)
            #expect(try await client.post("/_emulator/faults", #"{"kind":"meteor"}"#).status == 400)
        }
    }

    @Test("drop_webhooks drops a delivery (logged, never sent)")
    func dropWebhooks() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            _ = try await client.post("/_emulator/faults", #"{"kind":"drop_webhooks","count":1}"#)
            _ = try await client.createTrip(device: "D1", to: nil, metadata: #"{"n":1}"#)
            _ = try await client.createTrip(device: "D1", to: nil, metadata: #"{"n":2}"#)
            try await client.advance(0)
            let received = await webhooks.next(1)
            let data = received[0].events.first?["data"] as? [String: Any]
            #expect((data?["trip_metadata"] as? [String: Any])?["n"] as? Double == 2)
            #expect(await emulator.webhookDeliveries().map(\.outcome) == [.dropped, .delivered])
        }
    }

    @Test("duplicate_webhooks sends one delivery twice with the same message id")
    func duplicateWebhooks() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks)
            _ = try await client.post("/_emulator/faults", #"{"kind":"duplicate_webhooks","count":1,"event_type":"trip"}"#)
            _ = try await client.createTrip(device: "D1", to: nil)
            try await client.advance(0)
            let received = await webhooks.next(2)
            #expect(received[0].messageID == received[1].messageID)
            #expect(received[0].body == received[1].body)
        }
    }

    @Test("reorder_webhooks delivers a delivery after the next one")
    func reorderWebhooks() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            _ = try await client.post("/_emulator/faults", #"{"kind":"reorder_webhooks","count":1}"#)
            _ = try await client.createTrip(device: "D1", to: nil, metadata: #"{"n":1}"#)
            _ = try await client.createTrip(device: "D1", to: nil, metadata: #"{"n":2}"#)
            _ = try await client.createTrip(device: "D1", to: nil, metadata: #"{"n":3}"#)
            try await client.advance(0)
            let order = await webhooks.next(3).map {
                (($0.events.first?["data"] as? [String: Any])?["trip_metadata"] as? [String: Any])?["n"] as? Double
            }
            #expect(order == [2, 1, 3])
        }
    }

    @Test("the typed in-process fault API behaves like the control endpoint")
    func typedFaults() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks)
            try await emulator.addFault(.httpError(status: 502, method: "POST", path: "/trips/*/complete", count: 1))
            try await emulator.addFault(.duplicateWebhooks(eventType: "trip", count: 1))
            let trip = try await client.createTrip(device: "D1", to: nil)
            let tripID = try #require(trip["trip_id"] as? String)
            #expect(try await client.post("/trips/\(tripID)/complete").status == 502)
            #expect(try await client.post("/trips/\(tripID)/complete").status == 202)
            try await client.advance(0)
            let copies = await webhooks.next(2)
            #expect(copies[0].messageID == copies[1].messageID)
            let bad = await #expect(throws: HyperTrackEmulatorError.self) {
                try await emulator.addFault(.httpError(status: 200))
            }
            #expect(bad?.code == .invalidFault)
            await emulator.clearFaults()
            #expect((try await client.get("/_emulator/faults").object["data"] as? [[String: Any]])?.isEmpty == true)
        }
    }
}
