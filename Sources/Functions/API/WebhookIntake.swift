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

    /// Splits a body into usable events and rejections.
    init(body: Data) {
        let decoder = HyperTrackJSON.makeDecoder()
        let elements: [JSONValue]
        switch try? decoder.decode(JSONValue.self, from: body) {
        case .array(let array): elements = array
        case .some(let object) where object.objectValue != nil: elements = [object]
        case .some: 
            self.rejections = [WebhookRejection(index: nil, reason: "the body is not a JSON array of events", payload: nil)]
            return
        case .none:
            self.rejections = [WebhookRejection(index: nil, reason: "the body is not JSON", payload: nil)]
            return
        }
        for (index, element) in elements.enumerated() {
            do {
                let data = try JSONEncoder().encode(element)
                let event = try decoder.decode(WebhookEvent.self, from: data)
                self.events.append(try Self.inboxEvent(event, index: index))
            } catch let rejected as Rejected {
                self.rejections.append(WebhookRejection(index: index, reason: rejected.reason, payload: element))
            } catch {
                self.rejections.append(
                    WebhookRejection(index: index, reason: "not a HyperTrack event: \(error)", payload: element)
                )
            }
        }
    }

    struct Rejected: Error {
        var reason: String
    }

    /// The inbox's row of a usable event; throws ``Rejected`` with the reason otherwise.
    static func inboxEvent(_ event: WebhookEvent, index: Int) throws -> InboxEvent {
        guard case .object = event.raw else { throw Rejected(reason: "an event must be a JSON object") }
        guard Self.knownTypes.contains(event.type) else {
            throw Rejected(reason: "unknown event type \"\(event.type.rawValue)\"")
        }
        var inbox = InboxEvent(
            index: index,
            type: event.type.rawValue,
            deviceID: event.deviceID,
            recordedAt: event.recordedAt ?? event.createdAt,
            payload: event.raw
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

/// One event of a webhook delivery, normalised for the inbox; encoded as the row `jsonb_to_recordset` reads in
/// ``APIStore/storeWebhook(messageID:intake:)``.
struct InboxEvent: Sendable, Hashable, Encodable {
    var index: Int
    var type: String
    var value: String?
    var deviceID: String?
    var tripID: String?
    var latitude: Double?
    var longitude: Double?
    var recordedAt: Date?
    var summary: LegSummary?
    /// The event exactly as sent.
    var payload: JSONValue

    /// What identifies the event whatever delivery carries it: its type, device, trip, value, time and position.
    /// A replay (the same events under a new, unsigned `x-amz-sns-message-id`) has the same key, so the inbox's
    /// unique index on it inserts nothing. Hex SHA-256 of the fields joined by a separator none of them contains.
    var contentKey: String {
        let time = self.recordedAt.map { String(Int64(($0.timeIntervalSince1970 * 1_000_000).rounded())) } ?? ""
        let fields = [
            self.type, self.deviceID ?? "", self.tripID ?? "", self.value ?? "", time,
            self.latitude.map { "\($0)" } ?? "", self.longitude.map { "\($0)" } ?? "",
        ]
        let digest = SHA256.hash(data: Data(fields.joined(separator: "\u{1F}").utf8))
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    private enum CodingKeys: String, CodingKey {
        case index = "event_index"
        case type, value, latitude, longitude, summary, payload
        case deviceID = "device_id"
        case tripID = "trip_id"
        case recordedAt = "recorded_at"
        case contentKey = "content_key"
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
        try container.encodeIfPresent(self.recordedAt?.timeIntervalSince1970, forKey: .recordedAt)
        try container.encodeIfPresent(self.summary, forKey: .summary)
        try container.encode(self.payload, forKey: .payload)
        try container.encode(self.contentKey, forKey: .contentKey)
    }
}
