import Foundation
import HyperTrackEmulator
import Testing

/// The harness's manual clock starts at 2026-01-05T09:00:00Z; `at(30)` is the wire form of 30 s later.
private func at(_ seconds: Double) -> String {
    Date(timeIntervalSince1970: 1_767_603_600 + seconds)
        .formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}

private func data(_ event: [String: Any]) -> [String: Any] { event["data"] as? [String: Any] ?? [:] }

@Suite("Devices report like phones: locations, periodic reports, device_status", .timeLimit(.minutes(10)))
struct DeviceReportingTests {
    @Test("a placed device reports at once (active/stop + location), then a location every 30 s of emulated time")
    func periodicReports() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            let placed = try await client.post("/_emulator/devices", #"{"device_id":"P1","position":[13.4,52.52]}"#)
            #expect(placed.status == 201)
            #expect((placed.object["device_status"] as? [String: Any])?["value"] as? String == "active")
            try await client.advance(0)
            let first = await webhooks.next(1)[0].events
            #expect(first.map { $0["type"] as? String } == ["device_status", "location"])
            #expect(data(first[0])["value"] as? String == "active")
            #expect(data(first[0])["activity"] as? String == "stop")
            #expect((first[0]["location"] as? [String: Any])?["coordinates"] as? [Double] == [13.4, 52.52])
            let location = data(first[1])
            #expect((location["geometry"] as? [String: Any])?["type"] as? String == "Point")
            #expect((location["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [13.4, 52.52])
            #expect(location["accuracy"] is Double && location["speed"] as? Double == 0 && location["bearing"] is Double)
            #expect(first[1]["recorded_at"] as? String == at(0))
            #expect(first[1]["device_id"] as? String == "P1" && first[1]["version"] as? String == "2.0.0")

            try await client.advance(29)
            #expect(await emulator.webhookDeliveries().count == 1)  // nothing before the interval
            try await client.advance(1)
            let second = await webhooks.next(1)[0].events
            #expect(second.map { $0["type"] as? String } == ["location"])
            #expect(second[0]["recorded_at"] as? String == at(30))
            try await client.advance(60)
            let more = await webhooks.next(2).map { $0.events[0]["recorded_at"] as? String }
            #expect(more == [at(60), at(90)])
        }
    }

    @Test("the interval is configurable, and nil turns the periodic reports off")
    func intervalSetting() async throws {
        try await withEmulator(configure: { $0.options.locationReportInterval = 10 }) { emulator, client, _ in
            await emulator.registerDevice(id: "P1", longitude: 1, latitude: 2)
            try await client.advance(60)
            let times = await emulator.webhookDeliveries().compactMap { delivery -> String? in
                guard delivery.eventTypes == ["location"] else { return nil }
                let events = try? JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [[String: Any]]
                return events?.first?["recorded_at"] as? String
            }
            #expect(times == [at(10), at(20), at(30), at(40), at(50), at(60)])
        }
        try await withEmulator(configure: quiet) { emulator, client, _ in
            await emulator.registerDevice(id: "P1", longitude: 1, latitude: 2)
            try await client.advance(600)
            #expect(await emulator.webhookDeliveries().map(\.eventTypes) == [["device_status", "location"]])
        }
    }

    @Test(
        "a driving phone reports every movingReportInterval, not every step, and where it stopped at once; none set: every step"
    )
    func movingInterval() async throws {
        // The locations sent from the trip's start on (seconds after it), the last one's point, the device's point.
        func drivingReports(_ interval: Double?) async throws -> (times: [Double], last: [Double]?, end: [Double]?) {
            try await withEmulator(configure: {
                $0.options.locationReportInterval = nil
                $0.options.movingReportInterval = interval
            }) { emulator, client, _ in
                await emulator.registerDevice(id: "D1", longitude: -122.42, latitude: 37.77, tracking: true)
                try await client.advance(0)
                let before = await emulator.webhookDeliveries().count
                _ = try await client.createTrip(device: "D1", to: (-122.41, 37.78))
                try await client.advance(600)
                let events = await emulator.webhookDeliveries().dropFirst(before).flatMap { delivery in
                    (try? JSONSerialization.jsonObject(with: Data(delivery.body.utf8)) as? [[String: Any]]) ?? []
                }
                let start = Date(timeIntervalSince1970: 1_767_603_600)
                let locations = events.filter { $0["type"] as? String == "location" }
                let times = locations.compactMap { event -> Double? in
                    guard let text = event["recorded_at"] as? String,
                        let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
                    else { return nil }
                    return date.timeIntervalSince(start)
                }
                let last = (data(locations.last ?? [:])["geometry"] as? [String: Any])?["coordinates"] as? [Double]
                let device = try await client.get("/devices/D1").object
                let end = (device["location"] as? [String: Any]).flatMap {
                    ($0["geometry"] as? [String: Any])?["coordinates"] as? [Double]
                }
                return (times, last, end)
            }
        }
        let everyStep = try await drivingReports(nil)
        let sparse = try await drivingReports(20)
        // Every 5-second step while driving (the first location is the trip's start, at 0).
        let stepGaps = zip(everyStep.times, everyStep.times.dropFirst()).map { $1 - $0 }
        #expect(everyStep.times.count > 20 && stepGaps.allSatisfy { $0 == 5 }, "\(everyStep.times)")
        // With 20 s: every 20 s (4 steps), and the step that ended the drive, however soon after the last.
        let sparseGaps = zip(sparse.times, sparse.times.dropFirst()).map { $1 - $0 }
        #expect(sparseGaps.dropLast().allSatisfy { $0 == 20 }, "\(sparse.times)")
        #expect((sparseGaps.last ?? 0) <= 20)
        #expect(sparse.times.count < everyStep.times.count / 3, "\(sparse.times.count) vs \(everyStep.times.count)")
        // Both drives end on the same step, and the last location sent is where the phone stands.
        #expect(sparse.times.last == everyStep.times.last)
        #expect(sparse.last != nil && sparse.last == sparse.end, "\(String(describing: sparse.last)) \(String(describing: sparse.end))")
    }

    @Test("start reports active and a location, a move reports a location at once, stop reports inactive")
    func startMoveStop() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: 13.4, latitude: 52.52, tracking: false)
            try await client.advance(60)
            #expect(await emulator.webhookDeliveries().isEmpty)  // a phone that does not track says nothing
            #expect(try await client.post("/devices/D1/start").status == 204)
            try await client.advance(0)
            let started = await webhooks.next(1)[0].events
            #expect(started.map { $0["type"] as? String } == ["device_status", "location"])
            #expect(data(started[0])["value"] as? String == "active")
            #expect(started[1]["recorded_at"] as? String == at(60))

            try await client.advance(10)
            let moved = try await client.post("/_emulator/devices", #"{"device_id":"D1","position":[13.41,52.53]}"#)
            #expect(moved.status == 201)
            try await client.advance(0)
            let report = await webhooks.next(1)[0].events
            #expect(report.map { $0["type"] as? String } == ["location"])
            #expect((data(report[0])["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [13.41, 52.53])
            #expect(report[0]["recorded_at"] as? String == at(70))

            #expect(try await client.post("/devices/D1/stop").status == 204)
            try await client.advance(0)
            let stopped = await webhooks.next(1)[0].events
            #expect(stopped.map { $0["type"] as? String } == ["device_status"])
            #expect(data(stopped[0])["value"] as? String == "inactive")
            #expect(data(stopped[0])["reason"] as? String == "tracking_stopped")
            let count = await emulator.webhookDeliveries().count
            try await client.advance(300)
            #expect(await emulator.webhookDeliveries().count == count)  // a stopped device is silent
            let device = try await client.get("/devices/D1").object
            #expect((device["device_status"] as? [String: Any])?["value"] as? String == "inactive")
        }
    }

    @Test("offline: disconnected, silence, then back online active with a location")
    func offlineOnline() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            try await tracking("D1", emulator, client, &webhooks)
            let offline = try await client.post("/_emulator/devices/D1/offline")
            #expect(offline.status == 200)
            #expect((offline.object["device_status"] as? [String: Any])?["value"] as? String == "disconnected")
            try await client.advance(0)
            let gone = await webhooks.next(1)[0].events
            #expect(gone.map { $0["type"] as? String } == ["device_status"])
            #expect(data(gone[0])["value"] as? String == "disconnected")
            let count = await emulator.webhookDeliveries().count
            try await client.advance(300)
            #expect(await emulator.webhookDeliveries().count == count)
            try await emulator.setConnected(true, deviceID: "D1")
            try await client.advance(0)
            let back = await webhooks.next(1)[0].events
            #expect(back.map { $0["type"] as? String } == ["device_status", "location"])
            #expect(data(back[0])["value"] as? String == "active")
            #expect(back[1]["recorded_at"] as? String == at(300))
            let missing = try await client.post("/_emulator/devices/nope/offline")
            #expect(missing.status == 404 && missing.object["code"] as? String == "device_not_found")
            let error = await #expect(throws: HyperTrackEmulatorError.self) {
                try await emulator.setConnected(false, deviceID: "nope")
            }
            #expect(error?.code == .deviceNotFound)
        }
    }

    @Test("a trip: active/drive when it starts, active/stop on arrival, inactive once completed")
    func tripActivity() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "D1", longitude: -122.42, latitude: 37.77, tracking: false)
            let trip = try await client.createTrip(device: "D1", to: (-122.419, 37.771))
            try await client.advance(0)
            let started = await webhooks.next(1)[0].events
            #expect(started.map { $0["type"] as? String } == ["trip", "device_status", "location"])
            #expect(data(started[1])["activity"] as? String == "drive")
            let step = try await client.advance(120)
            let driving = await webhooks.next(Int(step.object["webhook_attempts"] as? Double ?? 0)).flatMap(\.events)
            let statuses = driving.filter { $0["type"] as? String == "device_status" }.map { data($0) }
            #expect(statuses.map { $0["activity"] as? String } == ["stop"])
            let arrival = driving.firstIndex { data($0)["value"] as? String == "destination_arrival" }
            let stop = driving.firstIndex { $0["type"] as? String == "device_status" }
            #expect(arrival != nil && stop != nil)
            #expect(try await client.post("/trips/\(trip["trip_id"] as? String ?? "")/complete").status == 202)
            let done = try await client.advance(5)
            let finished = await webhooks.next(Int(done.object["webhook_attempts"] as? Double ?? 0)).flatMap(\.events)
            #expect(finished.contains { $0["type"] as? String == "device_status" && data($0)["value"] as? String == "inactive" })
            #expect(finished.contains { data($0)["value"] as? String == "completed" })
        }
    }

    @Test("unknown devices are 404 device_not_found on every call; creating them on write is opt-in")
    func unknownDevices() async throws {
        try await withEmulator { _, client, _ in
            let calls = [
                try await client.get("/devices/X"), try await client.patch("/devices/X", #"{"name":"n"}"#),
                try await client.post("/devices/X/start"), try await client.post("/devices/X/stop"),
                try await client.post("/devices/X/undelete"), try await client.delete("/devices/X"),
                try await client.get("/devices/X/history/2026-01-05"), try await client.post("/trips", #"{"device_id":"X"}"#),
            ]
            for response in calls {
                #expect(response.status == 404)
                #expect(response.object["code"] as? String == "device_not_found")
                #expect(response.object["title"] is String && response.object["detail"] is String)
            }
            #expect(try await client.get("/devices").array.isEmpty)  // nothing was created
            #expect((try await client.get("/trips?status=all").object["data"] as? [Any])?.isEmpty == true)
        }
        try await withEmulator(configure: { $0.options.autoCreateDevices = true }) { _, client, _ in
            let trip = try await client.post("/trips", #"{"device_id":"X"}"#)
            let patch = try await client.patch("/devices/Y", #"{"name":"n"}"#)
            let devices = try await client.get("/devices")
            #expect(trip.status == 201 && patch.status == 204)
            #expect(devices.array.map { $0["device_id"] as? String } == ["X", "Y"])
            // A device created by a write does not track; placing it (the driver opens the app) starts it.
            let y = try await client.get("/devices/Y").object
            #expect((y["device_status"] as? [String: Any])?["value"] as? String == "inactive")
            let placed = try await client.post("/_emulator/devices", #"{"device_id":"Y","position":[1,2]}"#)
            #expect((placed.object["device_status"] as? [String: Any])?["value"] as? String == "active")
        }
    }
}
