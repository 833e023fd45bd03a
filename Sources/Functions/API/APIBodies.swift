import Foundation

/// `POST /v1/auth/code`.
struct CodeRequestBody: Decodable {
    var phone: String
    var role: String
}

/// `POST /v1/auth/session`.
struct SessionBody: Decodable {
    var phone: String
    var code: String
}

/// `POST /v1/auth/refresh`.
struct RefreshBody: Decodable {
    var refreshToken: String

    private enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
    }
}

/// `PUT /v1/me`: a name, and for drivers their car and the HyperTrack device of their phone.
struct ProfileBody: Decodable {
    var name: String
    var deviceID: String?
    var car: Car?

    struct Car: Decodable {
        var model: String
        var plate: String
    }

    private enum CodingKeys: String, CodingKey {
        case name, car
        case deviceID = "device_id"
    }
}

/// A point in a request: `{"lat", "lng", "address"?}`.
struct PlaceBody: Codable, Sendable, Hashable {
    var lat: Double
    var lng: Double
    var address: String?

    func validated(field: String) throws -> PlaceBody {
        let lat = try Validate.latitude(self.lat, field: "\(field).lat")
        let lng = try Validate.longitude(self.lng, field: "\(field).lng")
        let address = try self.address.map { try Validate.text($0, field: "\(field).address", length: 1...300) }
        return PlaceBody(lat: lat, lng: lng, address: address)
    }
}

/// `POST /v1/orders`.
struct BookOrderBody: Decodable {
    var pickup: PlaceBody
    var dropoff: PlaceBody
}

/// `POST /v1/orders/{id}/cancel`.
struct CancelBody: Decodable {
    var reason: String
}

/// `PUT /v1/drivers/me/availability`.
struct AvailabilityBody: Codable {
    var available: Bool
}
