import Foundation

/// `POST /v1/riders`.
struct RegisterRiderBody: Decodable {
    var name: String
    var phone: String
}

/// `POST /v1/drivers`.
struct RegisterDriverBody: Decodable {
    var name: String
    var phone: String
    var deviceID: String
    var car: Car

    struct Car: Decodable {
        var model: String
        var plate: String
    }

    private enum CodingKeys: String, CodingKey {
        case name, phone, car
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
