import Foundation
import HyperTrackEmulator
import NIOHTTP1
import Testing

@Suite("Trips API shapes and status codes", .timeLimit(.minutes(10)))
struct TripEndpointTests {
    @Test("POST /trips and /trips/ both answer 201 with the documented fields (never a redirect)")
    func createBothSpellings() async throws {
        try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: -122.42, latitude: 37.77, tracking: false)
            for path in ["/trips", "/trips/"] {
                let body = """
                    {"device_id": "D1",
                     "destination": {"geometry": {"type": "Point", "coordinates": [-122.5, 37.78]}, "radius": 50},
                     "geofences": [{"geometry": {"type": "Point", "coordinates": [-122.45, 37.77]}, "radius": 65,
                                    "metadata": {"id": "g1"}}],
                     "metadata": {"order_id": "A1"}}
                    """
                let response = try await client.post(path, body)
                #expect(response.status == 201)
                #expect(response.headers.first(name: "Content-Type") == "application/json")
                let trip = response.object
                for key in [
                    "trip_id", "device_id", "started_at", "completed_at", "status", "views", "device_info", "metadata",
                    "destination", "estimate", "eta_relevance_data", "geofences", "summary", "analytics",
                ] {
                    #expect(trip.keys.contains(key), "missing \(key)")
                }
                #expect(trip["completed_at"] is NSNull)
                #expect(trip["summary"] is NSNull)
                #expect(trip["status"] as? String == "active")
                let views = try #require(trip["views"] as? [String: Any])
                let share = try #require(views["share_url"] as? String)
                #expect(share.hasPrefix("https://trck.at/") && share.count == 23)
                #expect((views["embed_url"] as? String)?.contains(trip["trip_id"] as? String ?? "?") == true)
                let destination = try #require(trip["destination"] as? [String: Any])
                #expect(destination["radius"] as? Double == 50)
                #expect((destination["address"] as? String)?.isEmpty == false)
                let geofence = try #require((trip["geofences"] as? [[String: Any]])?.first)
                #expect(geofence["radius"] as? Double == 65)
                #expect((geofence["metadata"] as? [String: Any])?["id"] as? String == "g1")
                let route = try #require((trip["estimate"] as? [String: Any])?["route"] as? [String: Any])
                #expect((route["polyline"] as? [String: Any])?["type"] as? String == "LineString")
            }
        }
    }

    @Test("GET /trips lists active trips by default, filters by status and device_id, and paginates")
    func listing() async throws {
        try await withEmulator(configure: { $0.options.pageSize = 2 }) { emulator, client, _ in
            await emulator.registerDevice(id: "A", longitude: 1, latitude: 2, tracking: false)
            await emulator.registerDevice(id: "B", longitude: 1, latitude: 2, tracking: false)
            var ids: [String] = []
            for device in ["A", "A", "B"] { ids.append(try await client.createTrip(device: device, to: nil)["trip_id"] as! String) }
            #expect(try await client.post("/trips/\(ids[0])/complete/").status == 202)

            let active = try await client.get("/trips")
            #expect(active.status == 200)
            #expect((active.object["data"] as? [[String: Any]])?.map { $0["trip_id"] as! String } == [ids[1], ids[2]])
            #expect(active.object["pagination_token"] is NSNull)
            #expect((active.object["links"] as? [String: Any])?["next"] is NSNull)

            let ofA = try await client.get("/trips/?device_id=A")
            #expect((ofA.object["data"] as? [[String: Any]])?.map { $0["trip_id"] as! String } == [ids[1]])
            let processing = try await client.get("/trips?status=processing_completion")
            #expect((processing.object["data"] as? [[String: Any]])?.count == 1)

            let page1 = try await client.get("/trips?status=all")
            #expect((page1.object["data"] as? [[String: Any]])?.count == 2)
            let token = try #require(page1.object["pagination_token"] as? String)
            let next = try #require((page1.object["links"] as? [String: Any])?["next"] as? String)
            let page2 = try await client.get(next)
            #expect((page2.object["data"] as? [[String: Any]])?.map { $0["trip_id"] as! String } == [ids[2]])
            let page2ByToken = try await client.get("/trips?status=all&pagination_token=\(token)")
            #expect(page2ByToken.body == page2.body)

            let bad = try await client.get("/trips?status=sleeping")
            #expect(bad.status == 400)
            #expect(bad.object["title"] is String)
        }
    }

    @Test("unknown trips are 404 trip_not_found problems, with or without a trailing slash")
    func notFound() async throws {
        try await withEmulator { _, client, _ in
            for response in [
                try await client.get("/trips/nope"), try await client.get("/trips/nope/"),
                try await client.post("/trips/nope/complete"), try await client.post("/trips/nope/complete/"),
                try await client.get("/trips/nope/geofence/g"),
            ] {
                #expect(response.status == 404)
                #expect(response.object["code"] as? String == "trip_not_found")
                #expect(response.object["title"] as? String == "Trip could not be found")
                #expect(response.object["status"] as? Double == 404)
                #expect(response.object["detail"] is String && response.object["type"] is String)
                #expect(response.headers.first(name: "Content-Language") == "en-US")
                #expect(response.headers.first(name: "Content-Type") == "application/json")
            }
            let route = try await client.get("/nothing/here")
            #expect(route.status == 404)
            #expect(route.object["title"] is String)
        }
    }

    @Test("bad input gets 400 with a string title and changes nothing")
    func badInput() async throws {
        try await withEmulator { _, client, _ in
            let cases = [
                ("not json", "wrong_content_format"),
                (#"{"destination":{"geometry":{"type":"Point","coordinates":[1,2]}}}"#, "validation_error"),
                (#"{"device_id":"D1","colour":"red"}"#, "validation_error"),
                (#"{"device_id":"D1","destination":{"geometry":{"type":"Point","coordinates":[500,2]}}}"#, "validation_error"),
                (#"{"device_id":"D1","destination":{"geometry":{"type":"Point","coordinates":[1,2]},"radius":-3}}"#, "validation_error"),
            ]
            for (body, code) in cases {
                let response = try await client.post("/trips", body)
                #expect(response.status == 400, "\(body)")
                #expect(response.object["code"] as? String == code)
                #expect(response.object["title"] is String)
            }
            let empty = try await client.post("/trips")
            #expect(empty.status == 400)
            let all = try await client.get("/trips?status=all")
            #expect((all.object["data"] as? [[String: Any]])?.isEmpty == true)
            let devices = try await client.get("/devices")
            #expect(devices.array.isEmpty)
        }
    }

    @Test("bad Basic auth is 401 {\"message\":\"Unauthorized\"} on every endpoint")
    func unauthorized() async throws {
        try await withEmulator { _, client, _ in
            for path in ["/trips", "/trips/x", "/devices/", "/devices/nearby", "/geofences"] {
                for response in [
                    try await client.call(.GET, path, auth: false),
                    try await client.call(.GET, path, credentials: ("emulator-account", "wrong")),
                ] {
                    #expect(response.status == 401)
                    #expect(response.text == #"{"message":"Unauthorized"}"#)
                    #expect(response.headers.first(name: "Content-Type") == "application/json")
                }
            }
        }
    }

    @Test("trip geofence sub-resources: GET, PATCH metadata (also after completion), PATCH to append")
    func tripGeofences() async throws {
        try await withEmulator { emulator, client, _ in
            await emulator.registerDevice(id: "D1", longitude: 1, latitude: 2, tracking: false)
            let created = try await client.post(
                "/trips",
                #"{"device_id":"D1","geofences":[{"geometry":{"type":"Point","coordinates":[1,2]},"metadata":{"a":1}}]}"#
            ).object
            let tripID = created["trip_id"] as! String
            let geofenceID = (created["geofences"] as! [[String: Any]])[0]["geofence_id"] as! String
            for path in ["/trips/\(tripID)/geofence/\(geofenceID)", "/trips/\(tripID)/geofence/\(geofenceID)/"] {
                let geofence = try await client.get(path)
                #expect(geofence.status == 200)
                #expect(geofence.object["radius"] as? Double == 30)
            }
            let appended = try await client.patch(
                "/trips/\(tripID)/geofence/", #"{"geofences":[{"geometry":{"type":"Point","coordinates":[3,4]},"radius":80}]}"#)
            #expect(appended.status == 200)
            #expect((appended.object["geofences"] as? [[String: Any]])?.count == 2)
            #expect(try await client.post("/trips/\(tripID)/complete").status == 202)
            try await client.advance(10)
            let patched = try await client.patch("/trips/\(tripID)/geofence/\(geofenceID)", #"{"metadata":{"b":2}}"#)
            #expect(patched.status == 200)
            let reread = try await client.get("/trips/\(tripID)/geofence/\(geofenceID)")
            #expect((reread.object["metadata"] as? [String: Any])?["b"] as? Double == 2)
            let missing = try await client.get("/trips/\(tripID)/geofence/nope")
            #expect(missing.status == 404)
            #expect(missing.object["code"] as? String == "geofence_not_found")
        }
    }
}
