import Foundation

/// The JSON coders the client uses: flexible ISO-8601 dates, explicit snake_case keys in every model.
public enum HyperTrackJSON {
    /// A decoder for HyperTrack payloads (dates via ``HyperTrackDate``; unknown fields are ignored).
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = HyperTrackDate.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container,
                    debugDescription: "Not an ISO-8601 timestamp: \(text)"
                )
            }
            return date
        }
        return decoder
    }

    /// An encoder for request bodies (dates as UTC ISO-8601 with milliseconds).
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(HyperTrackDate.format(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// Keys built from any string, for payloads decoded field by field.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { self.stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
