import Foundation
import Functions
import HyperTrackAPI
import Testing

@Suite("TripTracking (the Functions adapter) over HTTP")
struct TripTrackingTests {
    @Test func createTripSendsTheDocumentedRequestAndDecodesThe201() async throws {
        try await withHyperTrack { fake, client, _ in
            let scheduled = try #require(HyperTrackDate.parse("2030-01-02T03:04:05Z"))
            let request = CreateTripRequest(
                deviceID: "DEV-1",
                destination: .init(point: Coordinate(latitude: 37.785334, longitude: -122.500005), radius: 50, scheduledAt: scheduled),
                metadata: ["order_id": "A1", "leg": "pickup", "seats": 2],
                geofences: [
                    GeofenceDefinition(geometry: .point(Coordinate(latitude: 47.8568, longitude: 35.1057)), radius: 65, metadata: ["id": "dec43d3c"])
                ]
            )
            let trip = try await client.createTrip(request)

            let sent = try #require(await fake.requests("POST", "/trips").first)
            #expect(sent.header("content-type") == "application/json")
            let expectedAuth = "Basic " + Data("\(fake.accountID):\(fake.secretKey)".utf8).base64EncodedString()
            #expect(sent.header("authorization") == expectedAuth)
            let body = try #require(sent.json?.objectValue)
            #expect(body["device_id"] == "DEV-1")
            #expect(body["metadata"] == ["order_id": "A1", "leg": "pickup", "seats": 2])
            #expect(
                body["destination"] == [
                    "geometry": ["type": "Point", "coordinates": [-122.500005, 37.785334]],
                    "radius": 50, "scheduled_at": "2030-01-02T03:04:05.000Z",
                ]
            )
            #expect(
                body["geofences"] == [
                    [
                        "geometry": ["type": "Point", "coordinates": [35.1057, 47.8568]], "radius": 65, "metadata": ["id": "dec43d3c"],
                    ]
                ]
            )

            #expect(trip.deviceID == "DEV-1")
            #expect(trip.status == .active)
            #expect(trip.metadata?["order_id"] == "A1")
            #expect(trip.views?.shareURL == "https://trck.at/abcdefg")
            #expect(trip.destination?.point == Coordinate(latitude: 37.785334, longitude: -122.500005))
            #expect(trip.destination?.radius == 50)
            #expect(trip.destination?.address == "100 34th Ave, San Francisco, CA 94121, USA")
            #expect(trip.destination?.scheduledAt == scheduled)
            #expect(trip.estimate?.distance == 4143)
            #expect(trip.estimate?.duration == 552)
            #expect(trip.estimate?.polyline.count == 2)
            #expect(trip.estimate?.reroutesExceeded == false)
            #expect(trip.geofences?.first?.radius == 65)
            #expect(trip.deviceInfo?.sdkVersion == "4.0.2")
            #expect(trip.etaRelevance?.status == true)
            #expect(trip.summary == nil)
            #expect(trip.completedAt == nil)
            #expect(trip.startedAt == HyperTrackDate.parse("2020-04-20T00:57:33.484361Z"))

            let read = try await client.trip(id: trip.tripID)
            #expect(read == trip)
            #expect(await fake.requests("GET", "/trips/\(trip.tripID)").count == 1)
        }
    }

    @Test func createTripIsNeverRetried() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.script("POST", "/trips", ScriptedAnswer(status: 503, body: #"{"message": "busy"}"#), count: 3)
            let error = await #expect(throws: HyperTrackAPIError.self) {
                try await client.createTrip(CreateTripRequest(deviceID: "D1"))
            }
            #expect(error?.status == 503)
            #expect(await fake.requests("POST", "/trips").count == 1)

            await fake.script("POST", "/trips", ScriptedAnswer(status: 429, headers: [("Retry-After", "0")]))
            await #expect(throws: HyperTrackAPIError.self) { try await client.createTrip(CreateTripRequest(deviceID: "D1")) }
            #expect(await fake.requests("POST", "/trips").count == 2)
        }
    }

    @Test func createTripRefusesAnEmptyDeviceWithoutSending() async throws {
        try await withHyperTrack { fake, client, _ in
            let error = await #expect(throws: HyperTrackAPIError.self) {
                try await client.createTrip(CreateTripRequest(deviceID: " "))
            }
            #expect(error?.code == .invalidRequest)
            #expect(await fake.requests.isEmpty)
        }
    }

    @Test func completeTripPostsWithoutBodyAndToleratesAnAlreadyCompletedTrip() async throws {
        try await withHyperTrack { fake, client, _ in
            let trip = try await client.createTrip(CreateTripRequest(deviceID: "D1"))
            try await client.tracking.completeTrip(id: trip.tripID)
            let sent = try #require(await fake.requests("POST", "/trips/\(trip.tripID)/complete").first)
            #expect(sent.body.isEmpty)
            #expect(sent.header("content-type") == nil)
            #expect(sent.header("content-length") == "0")
            #expect(try await client.trip(id: trip.tripID).status == .processingCompletion)

            // Completing again: the fake refuses with 400, the trip reads processing_completion → success.
            try await client.tracking.completeTrip(id: trip.tripID)
            await fake.finishCompletion(trip.tripID)
            try await client.tracking.completeTrip(id: trip.tripID)
            #expect(await fake.requests("POST", "/trips/\(trip.tripID)/complete").count == 3)

            // The raw call surfaces the refusal.
            let refusal = await #expect(throws: HyperTrackAPIError.self) {
                try await client.requestTripCompletion(id: trip.tripID)
            }
            #expect(refusal?.status == 400)
            #expect(refusal?.problemCode == "trip_already_completed")

            let completed = try await client.trip(id: trip.tripID)
            #expect(completed.status == .completed)
            let summary = try #require(completed.summary)
            #expect(summary.distance == 4200)
            #expect(summary.duration == 900)
            #expect(summary.locations.count == 3)
            #expect(summary.markers.count == 4)
        }
    }

    @Test func completeTripOfAnUnknownTripThrows404() async throws {
        try await withHyperTrack { _, client, _ in
            let error = await #expect(throws: HyperTrackAPIError.self) { try await client.tracking.completeTrip(id: "nope") }
            #expect(error?.status == 404)
            #expect(error?.problemCode == "trip_not_found")
            #expect(error?.problem?.title == "Trip could not be found")
        }
    }

    @Test func completeTripIsRetriedOn503AndSucceeds() async throws {
        try await withHyperTrack { fake, client, _ in
            let trip = try await client.createTrip(CreateTripRequest(deviceID: "D1"))
            let path = "/trips/\(trip.tripID)/complete"
            await fake.script("POST", path, ScriptedAnswer(status: 503, body: "Service Unavailable"))
            try await client.tracking.completeTrip(id: trip.tripID)
            #expect(await fake.requests("POST", path).count == 2)
            #expect(try await client.trip(id: trip.tripID).status == .processingCompletion)
        }
    }

    @Test func activeTripsFollowsEveryPageAndFiltersOnTheDevice() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.set(pageSize: 2, pagination: .token)
            var mine: [String] = []
            for index in 0..<5 {
                mine.append(try await client.createTrip(CreateTripRequest(deviceID: "D1", metadata: ["n": .number(Double(index))])).tripID)
                _ = try await client.createTrip(CreateTripRequest(deviceID: "D2"))
            }
            try await client.tracking.completeTrip(id: mine[0])
            let active = try await client.tracking.activeTrips(deviceID: "D1")
            #expect(active.map(\.tripID) == Array(mine.dropFirst()))
            let lists = await fake.requests("GET", "/trips")
            #expect(lists.count == 2)
            #expect(lists.allSatisfy { $0.query["status"] == "active" && $0.query["device_id"] == "D1" })
            #expect(lists.last?.query["pagination_token"] == "t2")
        }
    }

    @Test func updateDeviceSendsOnePatchAndNothingWhenThereIsNothingToChange() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.addDevice("DEV-9", name: "old")
            try await client.updateDevice(id: "DEV-9", name: "Ada · Prius", metadata: ["driver_id": "42", "rating": 4.5])
            let patch = try #require(await fake.requests("PATCH", "/devices/DEV-9").first)
            #expect(patch.json == ["name": "Ada · Prius", "metadata": ["driver_id": "42", "rating": 4.5]])
            #expect(patch.header("content-type") == "application/json")
            try await client.updateDevice(id: "DEV-9", name: nil, metadata: ["x": true])
            #expect(await fake.requests("PATCH", "/devices/DEV-9").last?.json == ["metadata": ["x": true]])
            try await client.updateDevice(id: "DEV-9", name: nil, metadata: nil)
            #expect(await fake.requests("PATCH", "/devices/DEV-9").count == 2)
            let unknown = await #expect(throws: HyperTrackAPIError.self) {
                try await client.updateDevice(id: "missing", name: "x", metadata: nil)
            }
            #expect(unknown?.problemCode == "device_not_found")
        }
    }

    @Test func nearbyDevicesPollsUntilCompletedAndReturnsNearestFirst() async throws {
        try await withHyperTrack { fake, client, _ in
            // Origin (0, 0); the fake lists them far-to-near to prove the client orders them.
            await fake.set(
                nearbyDevices: [
                    Fixtures.setting(Fixtures.device(id: "far", name: "f", latitude: 0.02, longitude: 0), "metadata", nil),
                    Fixtures.device(id: "near", name: "n", latitude: 0.001, longitude: 0),
                    Fixtures.device(id: "mid", name: "m", latitude: 0, longitude: 0.01),
                ],
                pendingPolls: 2
            )
            await fake.set(pageSize: 2, pagination: .token)
            let request = NearbyRequest(location: Coordinate(latitude: 0, longitude: 0), radius: 5000, metadata: ["team": "sf"], lastUpdatedWithin: 2)
            let devices = try await client.tracking.nearbyDevices(request, deadline: .now + .seconds(60))
            #expect(devices.map(\.deviceID) == ["near", "mid", "far"])
            #expect(devices.first?.requestID != nil)
            #expect(devices.first?.metadata == ["team": "sf"])
            #expect(devices[0].location?.altitude == 610)

            let start = try #require(await fake.requests("POST", "/devices/nearby").first)
            #expect(
                start.json == [
                    "location": ["type": "Point", "coordinates": [0, 0]], "radius": 5000,
                    "metadata": ["team": "sf"], "last_updated_within": 2,
                ]
            )
            let polls = await fake.requests("GET", "/devices/nearby")
            // 3 polls (pending, pending, completed), each of 2 pages.
            #expect(polls.count == 6)
            #expect(polls.allSatisfy { $0.query["request_id"] != nil })
        }
    }

    @Test func nearbyDevicesReturnsWhatItHasAtTheDeadline() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.set(nearbyDevices: [Fixtures.device(id: "only", name: "o", latitude: 1, longitude: 1)], pendingPolls: .max)
            let request = NearbyRequest(location: Coordinate(latitude: 1, longitude: 1), radius: 100)
            let devices = try await client.tracking.nearbyDevices(request, deadline: .now + .milliseconds(300))
            #expect(devices.map(\.deviceID) == ["only"])
            #expect(await fake.requests("GET", "/devices/nearby").count >= 1)
        }
    }
}
