import Foundation
import Hummingbird
import TriggerRuntime

/// `GET /v1/ops/orders`: orders in any state, newest first (at most 200).
struct OpsOrderList: Codable, Sendable, ResponseEncodable {
    var orders: [OpsOrderView]
}

/// One order as operators see it.
struct OpsOrderView: Codable, Sendable {
    var id: UUID
    var status: String
    var riderID: UUID
    var driverID: UUID?
    var createdAt: Date

    private enum CodingKeys: String, CodingKey {
        case id, status
        case riderID = "rider_id"
        case driverID = "driver_id"
        case createdAt = "created_at"
    }
}

/// `GET /v1/ops/drivers/positions`: every driver's last known position, newest first (at most 1000).
struct OpsPositionList: Codable, Sendable, ResponseEncodable {
    var drivers: [OpsPositionView]
}

/// One driver's exact last position, with who they are (operators only; riders see rounded positions).
struct OpsPositionView: Codable, Sendable {
    var driverID: UUID
    var name: String?
    var deviceID: String?
    var available: Bool
    var lat: Double
    var lng: Double
    var recordedAt: Date

    private enum CodingKeys: String, CodingKey {
        case name, available, lat, lng
        case driverID = "driver_id"
        case deviceID = "device_id"
        case recordedAt = "recorded_at"
    }
}

/// `GET /v1/ops/deliveries/dead`: dead-lettered deliveries, newest first (at most 200).
struct OpsDeliveryList: Codable, Sendable, ResponseEncodable {
    var deliveries: [OpsDeliveryView]
}

/// One delivery, as `ridesharing events list` shows it.
struct OpsDeliveryView: Codable, Sendable {
    var id: Int64
    var function: String
    var table: String
    var documentKey: String
    var attempt: Int
    var committedAt: Date
    var lastError: String?

    init(_ record: DeliveryRecord) {
        self.id = record.id
        self.function = record.function.rawValue
        self.table = record.table
        self.documentKey = record.documentKey
        self.attempt = record.attempt
        self.committedAt = record.committedAt
        self.lastError = record.lastError
    }

    private enum CodingKeys: String, CodingKey {
        case id, function, table, attempt
        case documentKey = "document_key"
        case committedAt = "committed_at"
        case lastError = "last_error"
    }
}

/// `POST /v1/ops/deliveries/{id}/retry`.
struct OpsRetryView: Codable, Sendable, ResponseEncodable {
    var id: Int64
    var retried: Bool
}
