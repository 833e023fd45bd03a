import Foundation
import HyperTrackAPI
import Testing

@testable import Functions

/// The intake's two ways through a body (without the events' JSON trees for the common delivery, with them for
/// anything else) must give the same rows: one source of truth, ``WebhookIntake/inboxEvent(_:index:isObject:)``.
@Suite("Webhook intake: decoded without JSON trees, the same rows as with them")
struct WebhookIntakeTests {
    static let usable = Data(
        """
        [{"created_at": "2026-11-21T19:00:00Z", "recorded_at": "2026-11-21T19:00:00.123456Z", "device_id": "D1",
          "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13.4, 52.5]}, "speed": 4}},
         {"created_at": "2026-11-21T19:00:01Z", "device_id": "D1", "type": "trip", "version": "2.0.0",
          "data": {"value": "completed", "trip_id": "T1", "summary": {"distance": 4000, "duration": 600,
            "locations": {"type": "LineString", "coordinates": [[13.4, 52.5, 30, "2026-11-21T19:00:00Z"],
              [13.41, 52.51, 31, "2026-11-21T19:05:00Z"]]}}}},
         {"created_at": "2026-11-21T19:00:02Z", "recorded_at": "2026-11-21T19:00:02Z", "device_id": "D1",
          "type": "device_status", "data": {"value": "active", "activity": "drive"},
          "location": {"type": "Point", "coordinates": [13.4, 52.5]}},
         {"created_at": "2026-11-21T19:00:03Z", "recorded_at": "2026-11-21T19:00:03Z", "device_id": "D1",
          "type": "battery", "data": {"value": "low"}}]
        """.utf8
    )

    @Test("a delivery of usable events: the same rows either way, and no trees kept")
    func sameRows() throws {
        let fast = try #require(WebhookIntake.everyEventUsable(Self.usable))
        let trees = WebhookIntake(decodingTrees: Self.usable)
        #expect(fast.events.count == 4)
        #expect(fast.events == trees.events)
        #expect(fast.rejections.isEmpty && trees.rejections.isEmpty)
        #expect(fast.elements == trees.elements)
        #expect(fast.events[1].summary != nil, "the trip's summary is read without the tree")
        #expect(WebhookIntake(body: Self.usable).events == trees.events)
    }

    @Test("a receipt's events read back are the events written, content ids too; locations go as columns, the rest as JSON")
    func receiptRoundTrip() throws {
        let intake = try #require(WebhookIntake.everyEventUsable(Self.usable))
        let delivery = try #require(ReceivedDelivery(messageID: "m", intake: intake))
        let read = try ReceivedDelivery(
            messageID: "m", receivedAt: Date(), elements: delivery.elements, stored: try delivery.storedEvents()
        )
        #expect(read.events == delivery.events)
        #expect(read.events.map(\.contentID) == delivery.events.map(\.contentID))
        #expect(read.events[0].recordedAt == 1_795_287_600.123456, "the microseconds kept exactly")
        #expect(delivery.locations.map(\.index) == [0])
        #expect(delivery.devices == ["D1"] && delivery.hasStatuses)
        let others = try JSONDecoder().decode([InboxEvent].self, from: Data(try delivery.othersJSON().utf8))
        #expect(others.map(\.index) == [1, 2, 3])
        let columns = WebhookStatements.LocationColumns(delivery.locations, contentIDs: true)
        #expect(columns.indexes == [0] && columns.devices == ["D1"] && columns.latitudes == [52.5])
        #expect(columns.contentIDs == [delivery.events[0].contentID])
    }

    @Test(
        "a JSON array's elements cut as text are the elements it decodes to",
        arguments: [
            String(decoding: Self.usable, as: UTF8.self), "[]", " [ ] ", "[1]", #"[ "a,]" , {"b": [1, {"c": "}\\"}]}, null ]"#,
            #"[{"x": "\"]"}, [[], {}], "\\", "é ✓ \u00e9"]"#, "[\n{\"a\": 1}\r\n,\t{\"b\": 2}\n]\n",
        ]
    )
    func arrayElements(text: String) throws {
        let elements = try #require(JSONArrayElements.split(text))
        let whole = try JSONDecoder().decode([JSONValue].self, from: Data(text.utf8))
        let cut = try elements.map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
        #expect(cut == whole)
        #expect(elements.allSatisfy { $0 == $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }

    @Test(
        "text that is not an array as the cut reads it is not cut",
        arguments: ["", "{}", "1", "[1,]", "[,1]", "[1,,2]", "[1] x", "[1", "[}", #"["]"#, "[{]"]
    )
    func notArrayElements(text: String) {
        #expect(JSONArrayElements.split(text) == nil, "\(text)")
    }

    @Test("each device's newest location: the latest recorded, then the later event; a location with no time is not one")
    func latestLocations() {
        func location(_ index: Int, _ device: String, at: Double?) -> InboxEvent {
            InboxEvent(
                index: index, type: "location", deviceID: device, latitude: 52, longitude: 13, recordedAt: at
            )
        }
        let delivery = ReceivedDelivery(
            messageID: "m", receivedAt: nil, elements: "[]",
            events: [
                location(0, "A", at: 10), location(1, "A", at: 30), location(2, "A", at: 20), location(3, "B", at: 5),
                location(4, "B", at: 5), location(5, "C", at: nil), location(6, "B", at: 4),
                InboxEvent(index: 7, type: "battery", value: "low", deviceID: "A"),
            ]
        )
        #expect(delivery.latestLocations().map(\.index) == [1, 4])
        #expect(delivery.locations.map(\.index) == [0, 1, 2, 3, 4, 6])
        #expect(Set(delivery.devices) == ["A", "B", "C"] && !delivery.hasStatuses)
    }

    @Test(
        "anything unusable (a bad event, a non-object, null, NUL, one object) goes the way that keeps the event as sent",
        arguments: [
            #"[{"device_id": "D1", "type": "teleport", "data": {}}]"#,
            #"[{"device_id": "D1", "type": "location", "data": {"geometry": {"type": "Point", "coordinates": [13, 152]}}}]"#,
            #"["not an event"]"#,
            #"[null]"#,
            #"[{"device_id": "D\u0000", "type": "battery", "data": {"value": "low"}}]"#,
            #"{"device_id": "D1", "type": "battery", "data": {"value": "low"}}"#,
        ]
    )
    func unusable(body: String) {
        let data = Data(body.utf8)
        #expect(WebhookIntake.everyEventUsable(data) == nil)
        let intake = WebhookIntake(body: data)
        let trees = WebhookIntake(decodingTrees: data)
        #expect(intake.events == trees.events)
        #expect(intake.rejections == trees.rejections)
        #expect(!intake.rejections.isEmpty || body.hasPrefix("{"))
    }

    @Test(
        "a NUL escape is found wherever it is, and only a NUL escape",
        arguments: [
            (#"["\u0000"]"#, true), (#"[{"a": "x\u0000"}]"#, true), (#"\u0000"#, true), (#"[{"a\u0000": 1}]"#, true),
            (#"["\\\u0000"]"#, true), (#"["\\u0000"]"#, false), (#"["\u00000"]"#, true), (#"["\u0001"]"#, false),
            (#"["\u000"]"#, false), (#"["\"#, false), (#"\"#, false), ("", false), (#"[{"a": "\"\/\n"}]"#, false),
        ]
    )
    func nulEscape(body: String, holds: Bool) {
        #expect(WebhookIntake.escapesNUL(Data(body.utf8)) == holds, "\(body)")
    }

    @Test("WebhookEvent decoded without its tree: the same typed fields, raw null; a non-object keeps its value")
    func eventWithoutTree() throws {
        let decoder = HyperTrackJSON.makeDecoder()
        let with = try decoder.decode([WebhookEvent].self, from: Self.usable)
        decoder.userInfo[WebhookEvent.keepsRawKey] = false
        let without = try decoder.decode([WebhookEvent].self, from: Self.usable)
        #expect(without.map(\.payload) == with.map(\.payload))
        #expect(without.map(\.type) == with.map(\.type))
        #expect(without.map(\.recordedAt) == with.map(\.recordedAt))
        #expect(without.map(\.location) == with.map(\.location))
        #expect(without.allSatisfy { $0.raw == .null })
        #expect(with.allSatisfy { $0.raw.objectValue != nil })
        let odd = try decoder.decode([WebhookEvent].self, from: Data(#"["text", {"type": "nova", "data": [1]}]"#.utf8))
        #expect(odd[0].raw == .string("text") && odd[0].payload == .unknown(.string("text")))
        #expect(odd[1].payload == .unknown(.array([.number(1)])), "an unknown type keeps its data without the tree")
    }
}
