import Foundation
import HyperTrackAPI
import Testing

@Suite("Models and wire forms")
struct ModelDecodingTests {
    @Test(arguments: [
        ("2020-04-20T00:57:33Z", 1_587_344_253.0),
        ("2020-04-20T00:57:33.484Z", 1_587_344_253.484),
        ("2020-04-20T00:57:33.484361Z", 1_587_344_253.484361),
        ("2020-04-20T00:57:33+00:00", 1_587_344_253.0),
        ("2020-04-20T02:57:33.484361+02:00", 1_587_344_253.484361),
        ("2020-04-19T19:57:33.484-05:00", 1_587_344_253.484),
        ("2020-04-20T00:57:33+0000", 1_587_344_253.0),
        ("2020-04-20T00:57:33", 1_587_344_253.0),
        ("2020-04-20 00:57:33.1z", 1_587_344_253.1),
        ("1969-12-31T23:59:59Z", -1.0),
        ("2024-02-29T12:00:00Z", 1_709_208_000.0),
    ])
    func datesInEveryObservedForm(text: String, seconds: Double) throws {
        let date = try #require(HyperTrackDate.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(arguments: [
        "", "2020-04-20", "2020-04-20T00:57", "2020-13-01T00:00:00Z", "2020-04-20T00:57:33.Z",
        "2020-04-20T00:57:33Zjunk", "20-04-20T00:57:33Z", "2020-04-20T25:00:00Z", "yesterday",
    ])
    func notADate(text: String) {
        #expect(HyperTrackDate.parse(text) == nil)
    }

    @Test func datesFormatInUTCWithMilliseconds() throws {
        #expect(HyperTrackDate.format(Date(timeIntervalSince1970: 1_587_344_253.484)) == "2020-04-20T00:57:33.484Z")
        #expect(HyperTrackDate.format(Date(timeIntervalSince1970: 1_587_344_253.484_361)) == "2020-04-20T00:57:33.484361Z")
        #expect(HyperTrackDate.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        for text in ["2000-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z", "2100-12-31T12:34:56.789Z", "2020-04-20T00:57:33.484361Z"] {
            #expect(HyperTrackDate.format(try #require(HyperTrackDate.parse(text))) == text)
        }
    }

    @Test func aTripFromTheAPINotesDecodesWithIntegersFloatsAndUnknownFields() throws {
        let json = """
            {"trip_id": "2a819f6a-5bee-4192-9077-24fc61503ae9", "device_id": "00112233-4455-6677-8899-AABBCCDDEEFF",
             "started_at": "2020-04-20T00:57:33.484361Z", "completed_at": null, "status": "active",
             "views": {"embed_url": "https://embed.hypertrack.com/trips/2a81?publishable_key=pk",
                       "share_url": "https://trck.at/abcdefg"},
             "device_info": {"os_version": "13.3.1", "sdk_version": "4.0.2"}, "metadata": {"order_id": "A1"},
             "destination": {"geometry": {"type": "Point", "coordinates": [-122.500005, 37.785334]},
                             "radius": 30, "scheduled_at": null, "address": "100 34th Ave"},
             "estimate": {"arrive_at": "2020-04-20T01:06:45.914154Z",
                          "route": {"distance": 4143.0, "duration": 552, "remaining_duration": 551.5,
                                    "start_address": "a", "end_address": "b",
                                    "polyline": {"type": "LineString", "coordinates": [[-122.50385, 37.76112, 3]]}},
                          "reroutes_exceeded": false},
             "eta_relevance_data": {"status": false, "reason": "Destination too far",
                                    "time_at_irrelevance": "2020-04-20T01:00:00+00:00"},
             "geofences": [{"geofence_id": "g", "geometry": {"type": "Point", "coordinates": [35.1057, 47.8568]},
                            "radius": 65, "metadata": {"id": "dec43d3c"}, "arrived_at": "2020-04-20T01:00:00Z"}],
             "summary": null, "analytics": {}, "brand_new_field": {"x": [1, {"y": null}]}}
            """
        let trip = try decode(Trip.self, json)
        #expect(trip.status == .active)
        #expect(trip.estimate?.distance == 4143)
        #expect(trip.estimate?.duration == 552)
        #expect(trip.estimate?.remainingDuration == 551.5)
        #expect(trip.estimate?.polyline == [Coordinate(latitude: 37.76112, longitude: -122.50385, altitude: 3)])
        #expect(
            trip.etaRelevance
                == ETARelevance(status: false, reason: "Destination too far", timeAtIrrelevance: HyperTrackDate.parse("2020-04-20T01:00:00Z"))
        )
        #expect(trip.destination?.scheduledAt == nil)
        #expect(trip.geofences?.first?.metadata == ["id": "dec43d3c"])

        // What the client encodes, it decodes back identically.
        let again = try HyperTrackJSON.makeDecoder().decode(Trip.self, from: HyperTrackJSON.makeEncoder().encode(trip))
        #expect(again == trip)
    }

    @Test func aCompletedTripMayHaveAnEmptyEstimate() throws {
        let trip = try decode(Trip.self, #"{"trip_id": "t", "device_id": "d", "status": "completed", "estimate": {}}"#)
        #expect(trip.estimate == Trip.Estimate())
        let nullRoute = try decode(Trip.self, #"{"trip_id": "t", "device_id": "d", "estimate": {"route": null}}"#)
        #expect(nullRoute.estimate?.distance == nil)
    }

    @Test func openEnumsKeepUnknownValues() throws {
        let trip = try decode(Trip.self, #"{"trip_id": "t", "device_id": "d", "status": "paused_by_operator"}"#)
        #expect(trip.status.rawValue == "paused_by_operator")
        #expect(trip.status != .active)
        let device = try decode(
            Device.self,
            """
            {"device_id": "d", "battery": "overheating",
             "device_status": {"value": "hibernating", "data": {"activity": "cycle", "reason": "sdk_killed_by_user"}}}
            """
        )
        #expect(device.battery == "overheating")
        #expect(device.deviceStatus?.value == "hibernating")
        #expect(device.deviceStatus?.activity == "cycle")
        #expect(device.deviceStatus?.reason == "sdk_killed_by_user")
        #expect(device.location == nil)
        #expect(TripStatus.processingCompletion.description == "processing_completion")
    }

    @Test func summaryMarkersAreTypedWherePossible() throws {
        let summary = try decode(TripSummary.self, Fixtures.summary(deviceID: "D1"))
        #expect(summary.markers.map(\.markerID) == ["m1", "m2", "m3", "m4"])
        let status = try #require(summary.markers[0].deviceStatus)
        #expect(status.value == .active)
        #expect(status.activity == .drive)
        #expect(status.duration == 300)
        #expect(status.start?.location == Coordinate(latitude: 37.79, longitude: -122.39))
        #expect(status.end?.recordedAt == HyperTrackDate.parse("2021-02-05T11:58:10Z"))
        let geofence = try #require(summary.markers[1].geofence)
        #expect(geofence.arrival?.recordedAt == HyperTrackDate.parse("2021-02-05T12:00:00Z"))
        #expect(geofence.exit?.location == nil)
        #expect(geofence.exit?.recordedAt == HyperTrackDate.parse("2021-02-05T12:06:43Z"))
        #expect(geofence.duration == 403)
        #expect(geofence.geofence?.metadata == ["stop": "A"])
        #expect(geofence.routeTo?.distance == 1234)
        #expect(geofence.routeTo?.idleTime == 0)
        let tripMarker = try #require(summary.markers[2].tripMarker)
        #expect(tripMarker.metadata == ["note": "picked up"])
        #expect(tripMarker.location == Coordinate(latitude: 2.5, longitude: 1.5))
        #expect(summary.markers[3].type == "geotag_from_the_future")
        #expect(summary.markers[3].data == ["anything": [1, "two"]])
    }

    @Test func recordedLocationsAcceptTheTupleVariants() throws {
        let line = try decode(
            [RecordedLocation].self,
            """
            [[1, 2, 3, "2021-02-05T11:53:10.544Z"], [1, 2, null, "2021-02-05T11:53:10Z"], [1, 2, "2021-02-05T11:53:10Z"],
             [1, 2], [1, 2, 3], [1, 2, null, null]]
            """
        )
        #expect(line.map(\.coordinate.altitude) == [3, nil, nil, nil, 3, nil])
        #expect(line.map { $0.recordedAt != nil } == [true, true, true, false, false, false])
        #expect(line.allSatisfy { $0.coordinate.latitude == 2 && $0.coordinate.longitude == 1 })
        #expect(throws: (any Error).self) { try decode([RecordedLocation].self, #"[["a", 2]]"#) }
    }

    @Test func geometriesRoundTripAndUnknownOnesStayRaw() throws {
        let polygon = try decode(GeoJSONGeometry.self, #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#)
        guard case .polygon(let rings) = polygon else {
            Issue.record("\(polygon)")
            return
        }
        #expect(rings[0].count == 4)
        #expect(rings[0][1] == Coordinate(latitude: 0, longitude: 1))
        let multi = try decode(GeoJSONGeometry.self, #"{"type": "MultiPoint", "coordinates": [[0, 0], [1, 1]]}"#)
        #expect(multi == .other(["type": "MultiPoint", "coordinates": [[0, 0], [1, 1]]]))
        #expect(multi.point == nil)
        let encoded = try HyperTrackJSON.makeEncoder().encode(multi)
        #expect(try decode(JSONValue.self, String(decoding: encoded, as: UTF8.self)) == ["type": "MultiPoint", "coordinates": [[0, 0], [1, 1]]])
    }

    @Test func requestBodiesUseTheWireNames() throws {
        let request = NearbyRequest(
            location: Coordinate(latitude: 37.79, longitude: -122.4),
            radius: 1000,
            devices: ["A", "B"],
            lastUpdatedWithin: 0.5,
            deep: true
        )
        let json = try decode(JSONValue.self, String(decoding: try HyperTrackJSON.makeEncoder().encode(request), as: UTF8.self))
        #expect(
            json == [
                "location": ["type": "Point", "coordinates": [-122.4, 37.79]], "radius": 1000, "devices": ["A", "B"],
                "last_updated_within": 0.5, "deep": true,
            ]
        )
        #expect(try decode(NearbyRequest.self, String(decoding: try HyperTrackJSON.makeEncoder().encode(request), as: UTF8.self)) == request)

        var destination = CreateTripRequest.Destination(point: Coordinate(latitude: 0, longitude: 0))
        destination.polygon = [[Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 1, longitude: 0), Coordinate(latitude: 0, longitude: 0)]]
        let trip = CreateTripRequest(deviceID: "D", destination: destination)
        let tripJSON = try decode(JSONValue.self, String(decoding: try HyperTrackJSON.makeEncoder().encode(trip), as: UTF8.self))
        #expect(tripJSON == ["device_id": "D", "destination": ["geometry": ["type": "Polygon", "coordinates": [[[0, 0], [0, 1], [0, 0]]]]]])
    }

    @Test("JSONValue: every kind decodes as itself, nested, whatever the order its kinds are tried in")
    func jsonValueKinds() throws {
        let text = #"{"s": "1", "n": 1, "f": -2.5e3, "t": true, "F": false, "z": null, "e": "", "a": [1, "1", true, null, [], {}], "o": {"k": {"b": false}}}"#
        let value = try decode(JSONValue.self, text)
        let expected: JSONValue = [
            "s": "1", "n": 1, "f": -2500.0, "t": true, "F": false, "z": nil, "e": "",
            "a": [1, "1", true, nil, [], [:]], "o": ["k": ["b": false]],
        ]
        #expect(value == expected)
        #expect(try decode(JSONValue.self, String(decoding: try JSONEncoder().encode(value), as: UTF8.self)) == value)
        for scalar in ["true", "false", "null", "0", "\"true\"", "\"0\"", "[]", "{}"] {
            let decoded = try decode(JSONValue.self, scalar)
            #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == scalar, "\(scalar)")
        }
    }
}
