import Foundation
import HyperTrackAPI
import Testing

@Suite("Webhook deliveries")
struct WebhookDecodingTests {
    static let delivery = """
        [
          {"created_at": "2019-07-01T20:00:01.247377Z", "recorded_at": "2019-07-01T20:00:00.000000Z",
           "device_id": "00112233-4455-6677-8899-AABBCCDDEEFF", "type": "device_status",
           "data": {"value": "active", "activity": "walk"},
           "location": {"type": "Point", "coordinates": [-6.2755, 57.6398983, 124]}, "version": "2.0.0"},
          {"created_at": "2019-07-01T20:00:02Z", "recorded_at": "2019-07-01T20:00:01+00:00", "device_id": "D1",
           "type": "device_status", "data": {"value": "inactive", "reason": "location_permissions_denied"},
           "version": "2.0.0"},
          {"created_at": "2019-07-01T20:00:02Z", "device_id": "D1", "type": "device_status",
           "data": {"value": "disconnected"}, "version": "2.0.0"},
          {"created_at": "2019-07-01T20:00:03.5Z", "recorded_at": "2019-07-01T20:00:03.123Z", "device_id": "D1",
           "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [-122.4, 37.79, null]},
                                        "accuracy": 9.5, "speed": 3, "bearing": 180.0}, "version": "2.0.0"},
          {"created_at": "2019-07-01T20:00:04Z", "recorded_at": "2019-07-01T20:00:04Z", "device_id": "D1",
           "type": "battery", "data": {"value": "low", "battery_percent": 9},
           "location": {"type": "Point", "coordinates": [1, 2]}, "version": "2.0.0"},
          {"created_at": "2020-04-20T01:00:00.123456Z", "device_id": "D1", "type": "trip",
           "data": {"value": "created", "trip_id": "t-1", "trip_metadata": {"order_id": "A1", "leg": "pickup"}},
           "version": "2.0.0"},
          {"created_at": "2020-04-20T01:06:50.123456Z", "device_id": "00112233-4455-6677-8899-AABBCCDDEEFF",
           "type": "trip", "data": {"value": "destination_arrival", "trip_id": "2a819f6a-5bee-4192-9077-24fc61503ae9",
                                    "trip_metadata": {"order_id": "A1"}}, "version": "2.0.0"},
          {"created_at": "2020-04-20T01:07:00Z", "device_id": "D1", "type": "trip",
           "data": {"value": "geofence_enter", "trip_id": "t-1", "trip_metadata": null,
                    "geofence_metadata": {"stop": 2}, "geofence_id": "g-7"}, "version": "2.0.0"},
          {"created_at": "2020-04-20T01:08:00Z", "device_id": "D1", "type": "trip",
           "data": {"value": "geofence_exit", "trip_id": "t-1", "geofence_metadata": {"stop": 2}}, "version": "2.0.0"},
          {"created_at": "2020-04-20T01:10:00.5+02:00", "device_id": "D1", "type": "trip",
           "data": {"value": "completed", "trip_id": "t-1", "trip_metadata": {"order_id": "A1"},
                    "summary": \(Fixtures.summary(deviceID: "D1"))}, "version": "2.0.0"},
          {"created_at": "2020-04-20T01:11:00Z", "device_id": "D1", "type": "trip",
           "data": {"value": "delay", "trip_id": "t-1", "delay_seconds": 120}, "version": "2.0.0"},
          {"created_at": "2020-04-29T02:25:59.906839Z", "type": "nearby_devices_request",
           "data": {"value": "completed", "request_id": "09f63b10-9bbc-4b24-af1a-d8ac84644fcc",
                    "location": {"type": "Point", "coordinates": [-122.402007, 37.792524]},
                    "metadata": {"team": "san_francisco"}, "radius": 1000}, "version": "2.0.0"},
          {"created_at": "2025-01-01T00:00:00Z", "type": "geofence", "account_id": "acc", "worker_handle": "w",
           "data": {"value": "entry", "arrival": {"recorded_at": "2025-01-01T00:00:00Z"}}, "version": "3.0.0"},
          {"created_at": "not a date", "type": "trip", "data": {"value": "created"}},
          "just a string"
        ]
        """

    @Test func decodesEveryKnownEventTypeAndKeepsTheRest() throws {
        let events = try WebhookEvent.decodeDelivery(Data(Self.delivery.utf8))
        #expect(events.count == 15)

        let active = events[0]
        #expect(active.type == .deviceStatus)
        #expect(active.deviceID == "00112233-4455-6677-8899-AABBCCDDEEFF")
        #expect(active.createdAt == HyperTrackDate.parse("2019-07-01T20:00:01.247377Z"))
        #expect(active.recordedAt == HyperTrackDate.parse("2019-07-01T20:00:00Z"))
        #expect(active.location == Coordinate(latitude: 57.6398983, longitude: -6.2755, altitude: 124))
        #expect(active.version == "2.0.0")
        guard case .deviceStatus(let status) = active.payload else {
            Issue.record("\(active.payload)")
            return
        }
        #expect(status.value == .active)
        #expect(status.activity == .walk)
        #expect(active.raw.objectValue?["type"] == "device_status")

        guard case .deviceStatus(let inactive) = events[1].payload else {
            Issue.record("inactive")
            return
        }
        #expect(inactive.value == .inactive)
        #expect(inactive.reason == "location_permissions_denied")
        guard case .deviceStatus(let disconnected) = events[2].payload else {
            Issue.record("disconnected")
            return
        }
        #expect(disconnected.value == .disconnected)

        guard case .location(let location) = events[3].payload else {
            Issue.record("location")
            return
        }
        #expect(location.coordinate == Coordinate(latitude: 37.79, longitude: -122.4))
        #expect(location.accuracy == 9.5)
        #expect(location.speed == 3)
        #expect(location.bearing == 180)

        guard case .battery(let battery) = events[4].payload else {
            Issue.record("battery")
            return
        }
        #expect(battery.value == .low)
        #expect(battery.batteryPercent == 9)
        #expect(events[4].location == Coordinate(latitude: 2, longitude: 1))
    }

    @Test func decodesTripEvents() throws {
        let events = try WebhookEvent.decodeDelivery(Data(Self.delivery.utf8))
        let trips: [TripEvent] = events.compactMap { if case .trip(let trip) = $0.payload { trip } else { nil } }
        #expect(trips.map(\.value) == [.created, .destinationArrival, .geofenceEnter, .geofenceExit, .completed, "delay"])
        #expect(trips[0].tripMetadata == ["order_id": "A1", "leg": "pickup"])
        #expect(trips[1].tripID == "2a819f6a-5bee-4192-9077-24fc61503ae9")
        #expect(trips[2].tripMetadata == nil)
        #expect(trips[2].geofenceMetadata == ["stop": 2])
        #expect(trips[2].geofenceID == "g-7")
        #expect(trips[3].geofenceMetadata == ["stop": 2])
        #expect(trips[0].summary == nil)

        let summary = try #require(trips[4].summary)
        #expect(summary.distance == 4200)
        #expect(summary.duration == 900)
        #expect(summary.deviceID == "D1")
        #expect(summary.completedAt == HyperTrackDate.parse("2020-04-20T01:10:00Z"))
        #expect(summary.locations.first?.coordinate == Coordinate(latitude: 37.792382, longitude: -122.397368, altitude: 42))
        #expect(summary.locations[1].coordinate.altitude == nil)
        #expect(summary.locations[2].recordedAt == HyperTrackDate.parse("2021-02-05T10:55:10.123456Z"))
        #expect(summary.markers.map(\.type) == [.deviceStatus, .geofence, .tripMarker, "geotag_from_the_future"])
        #expect(events[9].createdAt == HyperTrackDate.parse("2020-04-19T23:10:00.5Z"))

        // An unknown trip value is still a trip event, with its extra fields in `raw`.
        #expect(events[10].raw.objectValue?["data"]?.objectValue?["delay_seconds"] == 120)
    }

    @Test func decodesNearbyAndKeepsUnknownTypesAndBrokenEventsRaw() throws {
        let events = try WebhookEvent.decodeDelivery(Data(Self.delivery.utf8))
        guard case .nearbyDevicesRequest(let nearby) = events[11].payload else {
            Issue.record("nearby")
            return
        }
        #expect(events[11].deviceID == nil)
        #expect(nearby.value == .completed)
        #expect(nearby.requestID == "09f63b10-9bbc-4b24-af1a-d8ac84644fcc")
        #expect(nearby.location == Coordinate(latitude: 37.792524, longitude: -122.402007))
        #expect(nearby.metadata == ["team": "san_francisco"])
        #expect(nearby.radius == 1000)

        #expect(events[12].type == "geofence")
        #expect(events[12].payload == .unknown(["value": "entry", "arrival": ["recorded_at": "2025-01-01T00:00:00Z"]]))
        #expect(events[12].raw.objectValue?["worker_handle"] == "w")

        // A trip event without trip_id, with an unparseable date: kept, not fatal.
        #expect(events[13].type == .trip)
        #expect(events[13].createdAt == nil)
        #expect(events[13].payload == .unknown(["value": "created"]))

        #expect(events[14].type == "")
        #expect(events[14].payload == .unknown("just a string"))
    }

    @Test func eventsEncodeBackToWhatWasReceived() throws {
        let events = try WebhookEvent.decodeDelivery(Data(Self.delivery.utf8))
        let again = try WebhookEvent.decodeDelivery(HyperTrackJSON.makeEncoder().encode(events))
        #expect(again == events)
        #expect(events[6].tripEvent?.value == .destinationArrival)
        #expect(events[0].tripEvent == nil)
    }

    @Test func acceptsASingleEventObjectAndAnEmptyArray() throws {
        let single = try WebhookEvent.decodeDelivery(Data(#"{"type": "battery", "data": {"value": "charging"}}"#.utf8))
        #expect(single.count == 1)
        #expect(single.first?.payload == .battery(try decode(BatteryUpdate.self, #"{"value": "charging"}"#)))
        #expect(try WebhookEvent.decodeDelivery(Data("[]".utf8)).isEmpty)
    }

    @Test(arguments: ["", "not json", "42", "\"text\"", "[1, 2", "null"])
    func refusesABodyThatIsNotADelivery(body: String) throws {
        let error = #expect(throws: HyperTrackAPIError.self) { try WebhookEvent.decodeDelivery(Data(body.utf8)) }
        #expect(error?.code == .invalidWebhookPayload)
    }
}
