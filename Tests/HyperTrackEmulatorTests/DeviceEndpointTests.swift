import Foundation
import HyperTrackEmulator
import NIOHTTP1
import Testing

@Suite("Devices, history, nearby and account geofences", .timeLimit(.minutes(10)))
struct DeviceEndpointTests {
    @Test("GET /devices is a bare array; ?pagination=1 is a page object; deleted devices are hidden")
    func listing() async throws {
        try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "D1", name: "Ann", longitude: 1, latitude: 2)
            await emulator.registerDevice(id: "D2", longitude: 1.001, latitude: 2)
            let bare = try await client.get("/devices?pagination=0")
            #expect(bare.status == 200)
            #expect(bare.array.map { $0["device_id"] as? String } == ["D1", "D2"])
            let paged = try await client.get("/devices/?pagination=1")
            #expect((paged.object["data"] as? [[String: Any]])?.count == 2)
            #expect(paged.object.keys.contains("links") && paged.object.keys.contains("pagination_token"))

            let deleted = try await client.delete("/devices/D2")
            #expect(deleted.status == 204 && deleted.body.isEmpty)
            #expect(try await client.get("/devices").array.map { $0["device_id"] as? String } == ["D1"])
            let undeleted = try await client.post("/devices/D2/undelete/")
            #expect(undeleted.status == 204 && undeleted.body.isEmpty)
            #expect(try await client.get("/devices").array.count == 2)
        }
    }

    @Test("device object; PATCH name/metadata and start/stop answer 2xx with empty bodies")
    func deviceCommands() async throws {
        try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: -122.4, latitude: 37.7, tracking: false)
            let device = try await client.get("/devices/D1/")
            #expect(device.status == 200)
            for key in ["device_id", "location", "device_status", "views", "battery", "device_info", "registered_at", "metadata"] {
                #expect(device.object.keys.contains(key), "missing \(key)")
            }
            let patched = try await client.patch("/devices/D1", #"{"name":"Bob"}"#)
            #expect(patched.status == 204 && patched.body.isEmpty)
            let meta = try await client.patch("/devices/D1/", #"{"metadata":{"driver_id":"7","car":{"plate":"X"}}}"#)
            #expect(meta.status == 204)
            let reread = try await client.get("/devices/D1").object
            #expect((reread["device_info"] as? [String: Any])?["name"] as? String == "Bob")
            #expect((reread["metadata"] as? [String: Any])?["driver_id"] as? String == "7")
            #expect((reread["device_status"] as? [String: Any])?["value"] as? String == "inactive")

            let start = try await client.post("/devices/D1/start")
            #expect(start.status == 204 && start.body.isEmpty)
            #expect(((try await client.get("/devices/D1")).object["device_status"] as? [String: Any])?["value"] as? String == "active")
            let stop = try await client.post("/devices/D1/stop/")
            #expect(stop.status == 204 && stop.body.isEmpty)

            let bad = try await client.patch("/devices/D1", #"{"name":5}"#)
            #expect(bad.status == 400 && bad.object["title"] is String)
            let missing = try await client.get("/devices/nope")
            #expect(missing.status == 404)
            #expect(missing.object["code"] as? String == "device_not_found")
            #expect(missing.object["title"] is String)
            #expect(try await client.delete("/devices/nope").status == 404)
            #expect(try await client.call(.PUT, "/devices/D1", json: "{}").status == 405)
        }
    }

    @Test("device and account history")
    func history() async throws {
        try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: -122.42, latitude: 37.77)
            _ = try await client.createTrip(device: "D1", to: (-122.41, 37.77))
            try await client.advance(300)
            let day = Timestamp.day(of: await emulator.now())
            let history = try await client.get("/devices/D1/history/\(day)")
            #expect(history.status == 200)
            #expect((history.object["distance"] as? Double ?? 0) > 800)
            let coordinates = (history.object["locations"] as? [String: Any])?["coordinates"] as? [[Any]] ?? []
            #expect(coordinates.count > 10)
            #expect(try await client.get("/devices/D1/history/2020-13-45").status == 400)
            let account = try await client.get("/devices/history/\(day)?response=blob&type=json&unit=km")
            let url = try #require(account.object["url"] as? String)
            let export = try await client.call(.GET, url, auth: false)
            #expect(export.status == 200)
            #expect((export.json as? [[String: Any]])?.first?["device_id"] as? String == "D1")
        }
    }

    @Test("nearby: 202 with request_url, pending then completed, nearest first, metadata filter, webhook")
    func nearby() async throws {
        try await withEmulator { emulator, client, receiver in
            var webhooks = receiver.stream.makeAsyncIterator()
            await emulator.registerDevice(id: "far", longitude: -122.4000, latitude: 37.7900)  // ~1.1 km
            await emulator.registerDevice(id: "near", longitude: -122.4000, latitude: 37.7805)  // ~55 m
            await emulator.registerDevice(id: "mid", longitude: -122.4050, latitude: 37.7800)  // ~440 m
            await emulator.registerDevice(id: "out", longitude: -122.5000, latitude: 37.7800)  // ~8.8 km
            _ = try await client.patch("/devices/mid", #"{"metadata":{"team":"sf"}}"#)
            let request = try await client.post(
                "/devices/nearby", #"{"location":{"type":"Point","coordinates":[-122.4,37.78]},"radius":2000}"#)
            #expect(request.status == 202)
            let url = try #require(request.object["request_url"] as? String)
            #expect(url.contains("/devices/nearby?request_id="))
            let pending = try await client.get(url)
            #expect(pending.object["status"] as? String == "pending")
            #expect((pending.object["data"] as? [[String: Any]])?.map { $0["device_id"] as? String } == ["near", "mid", "far"])

            let step = try await client.advance(5)
            let hooks = await webhooks.next(Int(step.object["webhook_attempts"] as? Double ?? 0))
            let event = hooks.flatMap(\.events).first { $0["type"] as? String == "nearby_devices_request" }
            #expect((event?["data"] as? [String: Any])?["value"] as? String == "completed")
            let completed = try await client.get(url)
            #expect(completed.object["status"] as? String == "completed")
            let items = try #require(completed.object["data"] as? [[String: Any]])
            #expect(items.map { $0["device_id"] as? String } == ["near", "mid", "far"])
            #expect(items.allSatisfy { $0["nearby_devices_request_id"] is String })

            let filtered = try await client.post(
                "/devices/nearby/",
                #"{"location":{"type":"Point","coordinates":[-122.4,37.78]},"radius":2000,"metadata":{"team":"sf"}}"#)
            let only = try await client.get(try #require(filtered.object["request_url"] as? String))
            #expect((only.object["data"] as? [[String: Any]])?.map { $0["device_id"] as? String } == ["mid"])
            #expect(try await client.get("/devices/nearby?request_id=nope").status == 404)
            #expect(try await client.post("/devices/nearby", #"{"radius":5}"#).status == 400)
        }
    }

    @Test("with nearbyDelay 0 a nearby request is completed at once")
    func nearbyImmediate() async throws {
        try await withEmulator(configure: { $0.options.nearbyDelay = 0 }) { emulator, client, _ in
            await emulator.registerDevice(id: "n1", longitude: 10, latitude: 50, tracking: false)
            let request = try await client.post(
                "/devices/nearby", #"{"location":{"type":"Point","coordinates":[10,50.001]},"radius":500}"#)
            let results = try await client.get(try #require(request.object["request_url"] as? String))
            #expect(results.object["status"] as? String == "completed")
            #expect((results.object["data"] as? [[String: Any]])?.map { $0["device_id"] as? String } == ["n1"])
            try await client.advance(0)
            #expect(await emulator.webhookDeliveries().map(\.eventTypes) == [["nearby_devices_request"]])
        }
    }

    @Test("account geofences: create, list, get, patch, delete")
    func accountGeofences() async throws {
        try await withEmulator { _, client, _ in
            let created = try await client.post(
                "/geofences", #"[{"geometry":{"type":"Point","coordinates":[1,2]},"radius":100,"metadata":{"n":1}}]"#)
            #expect(created.status == 201)
            let id = try #require(created.array.first?["geofence_id"] as? String)
            #expect(created.array.first?["account_id"] as? String == "emulator-account")
            #expect((try await client.get("/geofences/").object["data"] as? [[String: Any]])?.count == 1)
            #expect(try await client.get("/geofences/\(id)").status == 200)
            let patched = try await client.patch("/geofences/\(id)/", #"{"metadata":{"n":2}}"#)
            #expect((patched.object["metadata"] as? [String: Any])?["n"] as? Double == 2)
            #expect(try await client.delete("/geofences/\(id)").status == 204)
            let gone = try await client.get("/geofences/\(id)")
            #expect(gone.status == 404 && gone.object["code"] as? String == "geofence_not_found")
            #expect(try await client.post("/geofences", #"[{"geometry":{"type":"Line"}}]"#).status == 400)
        }
    }
}

extension Timestamp {
    static func day(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }
}

enum Timestamp {}
