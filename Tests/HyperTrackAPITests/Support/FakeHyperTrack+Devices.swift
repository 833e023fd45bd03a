import Foundation
import Hummingbird
import HyperTrackAPI

extension FakeHyperTrack {
    /// Adds a device the fake knows.
    func addDevice(_ id: String, name: String = "Phone", latitude: Double = 37.79, longitude: Double = -122.39) {
        self.devices[id] = Fixtures.device(id: id, name: name, latitude: latitude, longitude: longitude)
        self.deviceOrder.append(id)
    }

    func device(_ id: String) -> JSONValue? { self.devices[id] }
    func trip(_ id: String) -> JSONValue? { self.trips[id] }
    func isDeleted(_ id: String) -> Bool { self.deletedDevices.contains(id) }

    func withDevice(_ id: String, _ body: (JSONValue) -> Response) -> Response {
        guard let device = self.devices[id] else {
            return Self.problem(404, "device_not_found", "Device could not be found", "Device '\(id)' does not exist")
        }
        return body(device)
    }

    func listDevices(_ r: RecordedRequest) -> Response {
        let all = self.deviceOrder.filter { !self.deletedDevices.contains($0) }.compactMap { self.devices[$0] }
        guard r.query["pagination"] == "1" || r.query["pagination"] == "true" else {
            return Self.response(200, json: .array(all))
        }
        return self.page(all, r)
    }

    func patchDevice(_ id: String, _ r: RecordedRequest) -> Response {
        guard let body = r.json?.objectValue, body["name"] != nil || body["metadata"] != nil else {
            return Self.badBody()
        }
        return self.withDevice(id) { device in
            var updated = device
            if let name = body["name"] {
                var info = device.objectValue?["device_info"] ?? [:]
                info = Fixtures.setting(info, "name", name)
                updated = Fixtures.setting(updated, "device_info", info)
            }
            if let metadata = body["metadata"] { updated = Fixtures.setting(updated, "metadata", metadata) }
            self.devices[id] = updated
            return Self.response(204, text: "")
        }
    }

    // MARK: nearby

    func startNearby(_ r: RecordedRequest) -> Response {
        guard let body = r.json?.objectValue, body["location"]?.objectValue?["type"] == "Point",
            body["radius"]?.doubleValue != nil
        else { return Self.badBody() }
        let id = UUID().uuidString.lowercased()
        self.nearby[id] = (0, self.nearbyDevices.isEmpty ? self.devicesWithin(body) : self.nearbyDevices)
        return Self.response(202, json: ["request_url": .string("\(self.baseURL)/devices/nearby?request_id=\(id)&limit=100")])
    }

    func pollNearby(_ r: RecordedRequest) -> Response {
        guard let id = r.query["request_id"], let state = self.nearby[id] else {
            return Self.problem(404, "nearby_request_not_found", "Nearby request could not be found", "unknown id")
        }
        // A poll is a fetch of the first page; later pages share its status.
        let polls = r.query["pagination_token"] == nil ? state.polls + 1 : state.polls
        self.nearby[id] = (polls, state.devices)
        let status: JSONValue = polls > self.nearbyPendingPolls ? "completed" : "pending"
        let start = r.query["pagination_token"].flatMap { Int($0.dropFirst()) } ?? 0
        let end = min(state.devices.count, start + self.pageSize)
        let items = start < end ? Array(state.devices[start..<end]) : []
        let withRequest = items.map { Fixtures.setting($0, "nearby_devices_request_id", .string(id)) }
        return Self.response(
            200,
            json: [
                "data": .array(withRequest), "status": status,
                "pagination_token": end < state.devices.count ? .string("n\(end)") : .null,
            ]
        )
    }

    /// Seeded devices inside the request's circle, in seeding order (the client must sort them).
    private func devicesWithin(_ body: [String: JSONValue]) -> [JSONValue] {
        let center = Fixtures.array(body["location"]?.objectValue?["coordinates"]).compactMap(\.doubleValue)
        guard center.count >= 2, let radius = body["radius"]?.doubleValue else { return [] }
        return self.deviceOrder.filter { !self.deletedDevices.contains($0) }.compactMap { self.devices[$0] }.filter {
            let geometry = $0.objectValue?["location"]?.objectValue?["geometry"]?.objectValue
            let position = Fixtures.array(geometry?["coordinates"]).compactMap(\.doubleValue)
            guard position.count >= 2 else { return false }
            return Fixtures.metres(center[1], center[0], position[1], position[0]) <= radius
        }
    }

    // MARK: account geofences

    func createGeofences(_ r: RecordedRequest) -> Response {
        guard case .array(let definitions)? = r.json, !definitions.isEmpty else { return Self.badBody() }
        var created: [JSONValue] = []
        for definition in definitions {
            let id = UUID().uuidString.lowercased()
            var object = definition.objectValue ?? [:]
            object["geofence_id"] = .string(id)
            object["account_id"] = .string(self.accountID)
            object["created_at"] = "2021-02-05T11:53:10.544Z"
            object["single_use"] = false
            object["archived"] = false
            object["geofence_type"] = "device"
            object["radius"] = object["radius"] ?? 30
            object["markers"] = ["data": [], "pagination_token": nil, "links": [:]]
            self.geofences[id] = .object(object)
            created.append(.object(object))
        }
        return Self.response(201, json: .array(created))
    }

    func withGeofence(_ id: String, _ body: (JSONValue) -> Response) -> Response {
        guard let geofence = self.geofences[id] else {
            return Self.problem(404, "geofence_not_found", "Geofence could not be found", "Geofence '\(id)'")
        }
        return body(geofence)
    }
}
