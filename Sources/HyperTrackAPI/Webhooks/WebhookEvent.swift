import Foundation

/// One event of a HyperTrack webhook delivery.
///
/// Decoding never fails on content: an unknown `type`, or a known type whose `data` we cannot read, gives a
/// ``Payload/unknown(_:)`` payload, and ``raw`` keeps the whole event as sent (unless the decoder's `userInfo` says
/// otherwise: ``keepsRawKey``).
public struct WebhookEvent: Sendable, Hashable, Codable {
    /// `location`, `device_status`, `battery`, `trip`, `nearby_devices_request`, or a type we do not know.
    public var type: WebhookEventType
    /// When HyperTrack processed the event.
    public var createdAt: Date?
    /// When the device recorded it (location, device status and battery events).
    public var recordedAt: Date?
    /// The device; absent on `nearby_devices_request`.
    public var deviceID: String?
    /// The payload version, e.g. `2.0.0`.
    public var version: String?
    /// The device's position (`location` on `device_status` and `battery` events).
    public var location: Coordinate?
    /// The typed payload.
    public var payload: Payload
    /// The whole event as sent (`.null` when decoded without it: ``keepsRawKey``).
    public var raw: JSONValue

    /// The typed `data` of an event.
    public enum Payload: Sendable, Hashable {
        /// A position update.
        case location(LocationUpdate)
        /// The device became active, inactive or disconnected.
        case deviceStatus(DeviceStatusUpdate)
        /// The battery state changed.
        case battery(BatteryUpdate)
        /// Something happened to a trip.
        case trip(TripEvent)
        /// A Nearby request completed.
        case nearbyDevicesRequest(NearbyRequestCompleted)
        /// A type we do not know, or data we could not read: the event's `data` as sent (`null` when absent).
        case unknown(JSONValue)
    }

    private enum CodingKeys: String, CodingKey {
        case type, data, location, version
        case createdAt = "created_at"
        case recordedAt = "recorded_at"
        case deviceID = "device_id"
    }

    /// Creates an event.
    public init(
        type: WebhookEventType,
        createdAt: Date? = nil,
        recordedAt: Date? = nil,
        deviceID: String? = nil,
        version: String? = nil,
        location: Coordinate? = nil,
        payload: Payload,
        raw: JSONValue = .null
    ) {
        self.type = type
        self.createdAt = createdAt
        self.recordedAt = recordedAt
        self.deviceID = deviceID
        self.version = version
        self.location = location
        self.payload = payload
        self.raw = raw
    }

    /// Set to `false` in a decoder's `userInfo` to decode events without ``raw`` (`.null` for an event that is a
    /// JSON object; an event that is not one keeps it). For receivers that keep the body's bytes themselves.
    ///
    /// Why: ``JSONValue``'s decoding tries each JSON type in turn, and Foundation's decoder throws (an error with its
    /// coding path and message) for every miss. Measured on this machine (release, a 434 KB delivery of 400
    /// locations and 60 completed trips with 300-point routes): the typed fields alone 18.6 ms, the raw tree 130 ms;
    /// 400 locations alone 2.1 ms against 10.0 ms. The webhook intake decoded both for every delivery of the
    /// 10,000-driver city.
    public static let keepsRawKey = CodingUserInfoKey(rawValue: "HyperTrackAPI.WebhookEvent.keepsRaw")!

    public init(from decoder: any Decoder) throws {
        let keepsRaw = decoder.userInfo[Self.keepsRawKey] as? Bool ?? true
        var raw = JSONValue.null
        if keepsRaw {
            raw = try JSONValue(from: decoder)
        }
        guard keepsRaw ? raw.objectValue != nil : true, let container = try? decoder.container(keyedBy: CodingKeys.self)
        else {
            if !keepsRaw { raw = try JSONValue(from: decoder) }
            self.init(type: "", payload: .unknown(raw), raw: raw)
            return
        }
        let type = (try? container.decodeIfPresent(WebhookEventType.self, forKey: .type)) ?? ""
        func typed<T: Decodable>(_: T.Type) -> T? { try? container.decode(T.self, forKey: .data) }
        var payload: Payload?
        switch type {
        case .location: payload = typed(LocationUpdate.self).map(Payload.location)
        case .deviceStatus: payload = typed(DeviceStatusUpdate.self).map(Payload.deviceStatus)
        case .battery: payload = typed(BatteryUpdate.self).map(Payload.battery)
        case .trip: payload = typed(TripEvent.self).map(Payload.trip)
        case .nearbyDevicesRequest: payload = typed(NearbyRequestCompleted.self).map(Payload.nearbyDevicesRequest)
        default: break
        }
        let data = {
            keepsRaw
                ? raw.objectValue?["data"] ?? .null
                : ((try? container.decodeIfPresent(JSONValue.self, forKey: .data)) ?? nil) ?? .null
        }
        self.init(
            type: type,
            createdAt: try? container.decodeIfPresent(Date.self, forKey: .createdAt),
            recordedAt: try? container.decodeIfPresent(Date.self, forKey: .recordedAt),
            deviceID: try? container.decodeIfPresent(String.self, forKey: .deviceID),
            version: try? container.decodeIfPresent(String.self, forKey: .version),
            location: (try? container.decodeIfPresent(GeoJSONGeometry.self, forKey: .location))??.point,
            payload: payload ?? .unknown(data()),
            raw: raw
        )
    }

    /// Encodes the event exactly as it was received (``raw``).
    public func encode(to encoder: any Encoder) throws {
        try self.raw.encode(to: encoder)
    }

    /// The trip event, if this is a readable `trip` event.
    public var tripEvent: TripEvent? {
        if case .trip(let event) = self.payload { return event }
        return nil
    }

    /// Decodes a delivery: the raw request body, a JSON array of events (a single event object is accepted too).
    /// - Parameter body: The body's bytes, whatever the request's `Content-Type`.
    /// - Throws: ``HyperTrackAPIError/Code/invalidWebhookPayload`` when the body is not JSON, or is JSON but
    ///   neither an array nor an object.
    public static func decodeDelivery(_ body: some DataProtocol) throws -> [WebhookEvent] {
        let decoder = HyperTrackJSON.makeDecoder()
        let data = Data(body)
        do {
            switch try decoder.decode(JSONValue.self, from: data) {
            case .array: return try decoder.decode([WebhookEvent].self, from: data)
            case .object: return [try decoder.decode(WebhookEvent.self, from: data)]
            default: break
            }
        } catch {
            throw HyperTrackAPIError(code: .invalidWebhookPayload, reason: "the body is not JSON", underlying: error)
        }
        throw HyperTrackAPIError(code: .invalidWebhookPayload, reason: "the body is not a JSON array of events")
    }
}

/// The `type` of a webhook event.
public struct WebhookEventType: OpenEnum {
    /// The wire string.
    public var rawValue: String
    /// Creates a value from its wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A position update.
    public static let location: Self = "location"
    /// A change of device status.
    public static let deviceStatus: Self = "device_status"
    /// A change of battery state.
    public static let battery: Self = "battery"
    /// A trip event.
    public static let trip: Self = "trip"
    /// A Nearby request completed.
    public static let nearbyDevicesRequest: Self = "nearby_devices_request"
}
