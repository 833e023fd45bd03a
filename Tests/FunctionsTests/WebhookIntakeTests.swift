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
