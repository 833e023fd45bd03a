import Foundation

/// A `webhook_events` row: one HyperTrack event from the inbox, already normalised by the webhook endpoint.
///
/// The endpoint decodes each delivery once (with HyperTrackAPI's webhook types) and stores the fields the
/// functions need as columns, next to the raw event in `payload`.
public struct WebhookEventRow: Sendable, Hashable, Codable {
    /// The inbox row's id.
    public var id: Int64
    /// `x-amz-sns-message-id` of the delivery.
    public var messageID: String
    /// The event's position in the delivery's array.
    public var eventIndex: Int
    /// `trip`, `location`, `device_status`, `battery`, …
    public var type: String
    /// `data.value` (`destination_arrival`, `completed`, …), when the event has one.
    public var value: String?
    /// The device, when the event names one.
    public var deviceID: String?
    /// The trip, for trip events.
    public var tripID: String?
    /// A location event's latitude.
    public var latitude: Double?
    /// A location event's longitude.
    public var longitude: Double?
    /// When the device recorded the event (or HyperTrack created it, when the device time is absent).
    public var recordedAt: Date?
    /// A `completed` trip event's summary.
    public var summary: LegSummary?
    /// What handling it recorded so far (`applied: …`, `ignored: …`, or waiting for its leg with a replay set); `nil`
    /// before it is handled.
    public var outcome: String?

    /// Creates an inbox row.
    public init(
        id: Int64,
        messageID: String,
        eventIndex: Int,
        type: String,
        value: String? = nil,
        deviceID: String? = nil,
        tripID: String? = nil,
        latitude: Double? = nil,
        longitude: Double? = nil,
        recordedAt: Date? = nil,
        summary: LegSummary? = nil,
        outcome: String? = nil
    ) {
        self.id = id
        self.messageID = messageID
        self.eventIndex = eventIndex
        self.type = type
        self.value = value
        self.deviceID = deviceID
        self.tripID = tripID
        self.latitude = latitude
        self.longitude = longitude
        self.recordedAt = recordedAt
        self.summary = summary
        self.outcome = outcome
    }

    private enum CodingKeys: String, CodingKey {
        case id, type, value, latitude, longitude, summary, outcome
        case messageID = "message_id"
        case eventIndex = "event_index"
        case deviceID = "device_id"
        case tripID = "trip_id"
        case recordedAt = "recorded_at"
    }
}
