import Crypto
import Foundation
import HyperTrackAPI

/// What an authenticated delivery's body holds: the events the inbox takes, and the ones it cannot use with why.
///
/// HyperTrack treats a 4xx as delivered and never retries it, so a delivery that authenticated is always accepted:
/// an event that cannot be used is recorded as rejected (``WebhookRejection``) and the rest are stored.
struct WebhookIntake: Sendable {
    /// The event types the backend reads; anything else is rejected (a new type is worth a log line, not a row that
    /// a function would have to ignore forever).
    static let knownTypes: Set<WebhookEventType> = [.location, .trip, .deviceStatus, .battery]

    var events: [InboxEvent] = []
    var rejections: [WebhookRejection] = []
    /// The delivery's events as a JSON array, as sent (a body of one event object is wrapped in brackets): the
    /// inbox takes each event's payload from it by index, so PostgreSQL parses the body once and the API never
    /// writes the events out again.
    var elements = "[]"

    private init(elements: String) { self.elements = elements }

    /// Splits a body into usable events and rejections.
    ///
    /// The body is decoded once, straight into events (``WebhookEvent``'s decoding never fails on content), without
    /// their JSON trees when every event is usable (``everyEventUsable(_:)``), else again with them
    /// (``init(decodingTrees:)``). It used to be decoded to a JSON tree, each element encoded again and decoded
    /// again, and the tree encoded a third time for the inbox: JSON was 55% of the API's CPU in the 10,000-driver
    /// simulation (perf), most of it here.
    init(body: Data) {
        if let usable = Self.everyEventUsable(body) {
            self = usable
        } else {
            self.init(decodingTrees: body)
        }
    }

    /// The intake of any body, each event decoded with its JSON tree (kept for the rejections).
    init(decodingTrees body: Data) {
        let decoder = HyperTrackJSON.makeDecoder()
        let decoded: [WebhookEvent]
        if let array = try? decoder.decode([WebhookEvent].self, from: body) {
            decoded = array
            self.elements = String(decoding: body, as: UTF8.self)
        } else if let event = try? decoder.decode(WebhookEvent.self, from: body), case .object = event.raw {
            decoded = [event]
            self.elements = "[" + String(decoding: body, as: UTF8.self) + "]"
        } else if (try? decoder.decode(JSONValue.self, from: body)) != nil {
            self.rejections = [WebhookRejection(index: nil, reason: "the body is not a JSON array of events", payload: nil)]
            return
        } else {
            self.rejections = [WebhookRejection(index: nil, reason: "the body is not JSON", payload: nil)]
            return
        }
        // PostgreSQL's jsonb cannot hold a NUL character (`\u0000`), which JSON allows: an event with one is rejected,
        // and the elements are written from the decoded events with NULs replaced, so the rest is stored.
        let hasNUL = Self.escapesNUL(body)
        if hasNUL {
            let cleaned = decoded.map { $0.raw.replacingNUL() }
            do {
                self.elements = String(decoding: try JSONEncoder().encode(cleaned), as: UTF8.self)
            } catch {
                // Not seen (decoded JSON encodes again); if it were, every event is rejected with the cause rather
                // than stored without its payload.
                self.rejections = cleaned.indices.map {
                    WebhookRejection(index: $0, reason: "the events could not be written out again: \(error)", payload: nil)
                }
                return
            }
        }
        for (index, event) in decoded.enumerated() {
            do {
                if hasNUL, event.raw != event.raw.replacingNUL() {
                    throw Rejected(reason: "text with a NUL character (\\u0000), which the inbox cannot store")
                }
                self.events.append(try Self.inboxEvent(event, index: index))
            } catch let rejected as Rejected {
                self.rejections.append(
                    WebhookRejection(index: index, reason: rejected.reason, payload: event.raw.replacingNUL())
                )
            } catch {
                self.rejections.append(
                    WebhookRejection(
                        index: index, reason: "not a HyperTrack event: \(error)", payload: event.raw.replacingNUL()
                    )
                )
            }
        }
    }

    /// The common delivery, decoded without each event's JSON tree (``WebhookEvent/keepsRawKey``): an array of
    /// events that are all usable, with no NUL. `nil` for anything else, which ``init(body:)`` decodes again with
    /// the trees (a rejection keeps the event as sent). The trees were most of the intake's CPU: a 400-location
    /// delivery decoded in 12 ms with them and 2 ms without; a 434 KB one with 60 trip summaries in ~150 ms and
    /// 19 ms (release, this machine).
    static func everyEventUsable(_ body: Data) -> WebhookIntake? {
        guard !Self.escapesNUL(body) else { return nil }
        let decoder = HyperTrackJSON.makeDecoder()
        decoder.userInfo[WebhookEvent.keepsRawKey] = false
        guard let decoded = try? decoder.decode([WebhookEvent].self, from: body) else { return nil }
        var intake = WebhookIntake(elements: String(decoding: body, as: UTF8.self))
        intake.events.reserveCapacity(decoded.count)
        for (index, event) in decoded.enumerated() {
            // Without its tree an event that is a JSON object has a `.null` raw; one that is not keeps its value
            // (and a JSON `null`, with no type, is not usable below).
            guard case .null = event.raw, let inbox = try? Self.inboxEvent(event, index: index, isObject: true)
            else { return nil }
            intake.events.append(inbox)
        }
        return intake
    }

    /// Whether the body holds the JSON escape of a NUL character (`\u0000`), which jsonb cannot store.
    ///
    /// Each backslash is found with `memchr` and the escape it starts read; an escaped backslash is stepped over, so
    /// `\\u0000` (a backslash, then the text `u0000`) is not taken for one. It was Foundation's generic
    /// `Data.firstRange(of:)`: 60 of the API's 660 perf samples (9%) in the 35th session's 4,000-ride city (Q3),
    /// more than the decoding of the events it guards.
    static func escapesNUL(_ body: Data) -> Bool {
        body.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return false }
            let count = raw.count
            var offset = 0
            while offset < count, let hit = memchr(base + offset, 0x5C, count - offset) {
                let at = base.distance(to: UnsafeRawPointer(hit))
                if at + 5 < count, raw[at + 1] == UInt8(ascii: "u"), raw[at + 2] == UInt8(ascii: "0"),
                    raw[at + 3] == UInt8(ascii: "0"), raw[at + 4] == UInt8(ascii: "0"), raw[at + 5] == UInt8(ascii: "0")
                {
                    return true
                }
                // The backslash and the character it escapes.
                offset = at + 2
            }
            return false
        }
    }

    struct Rejected: Error {
        var reason: String
    }

    /// The inbox's row of a usable event; throws ``Rejected`` with the reason otherwise.
    static func inboxEvent(_ event: WebhookEvent, index: Int, isObject: Bool = false) throws -> InboxEvent {
        guard isObject || event.raw.objectValue != nil else {
            throw Rejected(reason: "an event must be a JSON object")
        }
        guard Self.knownTypes.contains(event.type) else {
            throw Rejected(reason: "unknown event type \"\(event.type.rawValue)\"")
        }
        var inbox = InboxEvent(
            index: index,
            type: event.type.rawValue,
            deviceID: event.deviceID,
            recordedAt: (event.recordedAt ?? event.createdAt)?.timeIntervalSince1970
        )
        switch event.payload {
        case .location(let update):
            guard event.deviceID != nil else { throw Rejected(reason: "a location event needs a device_id") }
            guard let coordinate = update.coordinate else { throw Rejected(reason: "a location event needs a Point") }
            try Self.check(coordinate)
            inbox.latitude = Validate.degrees(coordinate.latitude)
            inbox.longitude = Validate.degrees(coordinate.longitude)
        case .trip(let trip):
            inbox.value = trip.value.rawValue
            inbox.tripID = trip.tripID
            inbox.summary = trip.summary.map(LegSummary.init)
        case .deviceStatus(let status):
            inbox.value = status.value.rawValue
            if let location = event.location {
                try Self.check(location)
                inbox.latitude = Validate.degrees(location.latitude)
                inbox.longitude = Validate.degrees(location.longitude)
            }
        case .battery(let battery):
            inbox.value = battery.value.rawValue
        case .nearbyDevicesRequest, .unknown:
            throw Rejected(reason: "a \(event.type.rawValue) event without a readable data object")
        }
        return inbox
    }

    private static func check(_ coordinate: Coordinate) throws {
        guard (-90...90).contains(coordinate.latitude), (-180...180).contains(coordinate.longitude),
            coordinate.latitude.isFinite, coordinate.longitude.isFinite
        else {
            throw Rejected(reason: "coordinates out of range (\(coordinate.latitude), \(coordinate.longitude))")
        }
    }
}

/// An event of an authenticated delivery that the inbox cannot use.
struct WebhookRejection: Sendable, Hashable {
    /// Its position in the delivery; `nil` when the whole body was unusable.
    var index: Int?
    var reason: String
    /// The event as sent, when there was one.
    var payload: JSONValue?
}

/// One event of a webhook delivery, normalised for the inbox (its payload, the event as sent, comes from
/// ``WebhookIntake/elements`` by ``index``). A location goes to PostgreSQL as array columns
/// (``ReceivedDelivery/locations``); any other event encoded as the row `jsonb_to_recordset` reads in
/// ``WebhookStatements/Inbox``. A previous release's receipt stored them all encoded (``ReceivedDelivery``).
struct InboxEvent: Sendable, Hashable, Codable {
    var index: Int
    var type: String
    var value: String?
    var deviceID: String?
    var tripID: String?
    var latitude: Double?
    var longitude: Double?
    /// Seconds since 1970, as PostgreSQL's `to_timestamp` reads them: a `Double` that JSON carries exactly both
    /// ways (a `Date` holds seconds since 2001 and its conversion can move the last bit).
    var recordedAt: Double?
    var summary: LegSummary?

    /// What identifies the event whatever delivery carries it: its type, device, trip, value, time and position.
    /// A replay (the same events under a new, unsigned `x-amz-sns-message-id`) has the same id, so the inbox's
    /// unique index on it inserts nothing. The first 16 bytes of the SHA-256 of the fields joined by a separator
    /// none of them contains, as 32 hex digits (PostgreSQL reads them as a `uuid`: a 16-byte index entry, see
    /// ``M0027ContentIDs``; the previous release stored all 64 digits as `content_key`, and 0027 derives this id
    /// from those).
    var contentID: String {
        let time = self.recordedAt.map { String(Int64(($0 * 1_000_000).rounded())) } ?? ""
        let fields = [
            self.type, self.deviceID ?? "", self.tripID ?? "", self.value ?? "", time,
            self.latitude.map { "\($0)" } ?? "", self.longitude.map { "\($0)" } ?? "",
        ]
        let digest = SHA256.hash(data: Data(fields.joined(separator: "\u{1F}").utf8))
        // Not String(format:) per byte: 32 of those per event were a visible share of the intake's CPU.
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in digest.prefix(16) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey {
        case index = "event_index"
        case type, value, latitude, longitude, summary
        case deviceID = "device_id"
        case tripID = "trip_id"
        case recordedAt = "recorded_at"
        case contentID = "content_id"
    }

    /// `recorded_at` as seconds since 1970 (`to_timestamp`): a number keeps the microseconds without a date format
    /// to agree on.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.index, forKey: .index)
        try container.encode(self.type, forKey: .type)
        try container.encodeIfPresent(self.value, forKey: .value)
        try container.encodeIfPresent(self.deviceID, forKey: .deviceID)
        try container.encodeIfPresent(self.tripID, forKey: .tripID)
        try container.encodeIfPresent(self.latitude, forKey: .latitude)
        try container.encodeIfPresent(self.longitude, forKey: .longitude)
        try container.encodeIfPresent(self.recordedAt, forKey: .recordedAt)
        try container.encodeIfPresent(self.summary, forKey: .summary)
        try container.encode(self.contentID, forKey: .contentID)
    }
}

extension InboxEvent {
    // In an extension, so the memberwise initialiser stays synthesized.
    /// An event as ``encode(to:)`` wrote it (a receipt's); its `content_id` is derived again, not read.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            index: try container.decode(Int.self, forKey: .index),
            type: try container.decode(String.self, forKey: .type),
            value: try container.decodeIfPresent(String.self, forKey: .value),
            deviceID: try container.decodeIfPresent(String.self, forKey: .deviceID),
            tripID: try container.decodeIfPresent(String.self, forKey: .tripID),
            latitude: try container.decodeIfPresent(Double.self, forKey: .latitude),
            longitude: try container.decodeIfPresent(Double.self, forKey: .longitude),
            recordedAt: try container.decodeIfPresent(Double.self, forKey: .recordedAt),
            summary: try container.decodeIfPresent(LegSummary.self, forKey: .summary)
        )
    }
}

extension JSONValue {
    /// The value with every NUL character in its strings and keys replaced by U+FFFD (what jsonb can store).
    func replacingNUL() -> JSONValue {
        func clean(_ text: String) -> String {
            text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
        }
        switch self {
        case .string(let text): return .string(clean(text))
        case .array(let values): return .array(values.map { $0.replacingNUL() })
        case .object(let members):
            return .object(Dictionary(members.map { (clean($0.key), $0.value.replacingNUL()) }) { first, _ in first })
        case .null, .bool, .number: return self
        }
    }
}
