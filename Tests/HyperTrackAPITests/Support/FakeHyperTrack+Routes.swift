import Foundation
import Hummingbird
import HyperTrackAPI

extension FakeHyperTrack {
    /// Matches `path` against a pattern where `*` captures one segment.
    private func match(_ request: RecordedRequest, _ method: String, _ pattern: String) -> [String]? {
        guard request.method == method else { return nil }
        let parts = request.path.split(separator: "/").map(String.init)
        let expected = pattern.split(separator: "/").map(String.init)
        guard parts.count == expected.count else { return nil }
        var captures: [String] = []
        for (part, want) in zip(parts, expected) {
            if want == "*" { captures.append(part.removingPercentEncoding ?? part) } else if part != want { return nil }
        }
        return captures
    }

    func route(_ r: RecordedRequest) -> Response {
        if match(r, "POST", "trips") != nil { return self.createTrip(r) }
        if match(r, "GET", "trips") != nil { return self.listTrips(r) }
        if let c = match(r, "GET", "trips/*") { return self.withTrip(c[0]) { Self.response(200, json: $0) } }
        if let c = match(r, "POST", "trips/*/complete") { return self.completeTrip(c[0]) }
        if let c = match(r, "GET", "trips/*/geofence/*") { return self.tripGeofence(c[0], c[1], patch: nil) }
        if let c = match(r, "PATCH", "trips/*/geofence/*") {
            guard let metadata = r.json?.objectValue?["metadata"] else { return Self.badBody() }
            return self.tripGeofence(c[0], c[1], patch: metadata)
        }
        if let c = match(r, "PATCH", "trips/*/geofence") { return self.addTripGeofences(c[0], r) }
        if match(r, "GET", "devices") != nil { return self.listDevices(r) }
        if match(r, "POST", "devices/nearby") != nil { return self.startNearby(r) }
        if match(r, "GET", "devices/nearby") != nil { return self.pollNearby(r) }
        if let c = match(r, "GET", "devices/history/*") {
            return Self.response(200, json: ["url": .string("https://exports.example/\(c[0]).json")])
        }
        if let c = match(r, "GET", "devices/*") { return self.withDevice(c[0]) { Self.response(200, json: $0) } }
        if let c = match(r, "PATCH", "devices/*") { return self.patchDevice(c[0], r) }
        if let c = match(r, "DELETE", "devices/*") {
            return self.withDevice(c[0]) { _ in
                self.deletedDevices.insert(c[0])
                return Self.response(204, text: "")
            }
        }
        if let c = match(r, "POST", "devices/*/start") { return self.withDevice(c[0]) { _ in Self.response(200, text: "") } }
        if let c = match(r, "POST", "devices/*/stop") { return self.withDevice(c[0]) { _ in Self.response(204, text: "") } }
        if let c = match(r, "POST", "devices/*/undelete") {
            self.deletedDevices.remove(c[0])
            return self.withDevice(c[0]) { _ in Self.response(200, text: "") }
        }
        if let c = match(r, "GET", "devices/*/history/*") {
            return self.withDevice(c[0]) { _ in Self.response(200, text: Fixtures.dayHistory(deviceID: c[0])) }
        }
        if match(r, "POST", "geofences") != nil { return self.createGeofences(r) }
        if let c = match(r, "GET", "geofences/*") { return self.withGeofence(c[0]) { Self.response(200, json: $0) } }
        if let c = match(r, "PATCH", "geofences/*") {
            guard let metadata = r.json?.objectValue?["metadata"] else { return Self.badBody() }
            return self.withGeofence(c[0]) { geofence in
                self.geofences[c[0]] = Fixtures.setting(geofence, "metadata", metadata)
                return Self.response(204, text: "")
            }
        }
        if let c = match(r, "DELETE", "geofences/*") {
            return self.withGeofence(c[0]) { _ in
                self.geofences[c[0]] = nil
                return Self.response(204, text: "")
            }
        }
        return Self.problem(404, "route_not_found", "No such route", "\(r.method) \(r.path)")
    }

    static func badBody() -> Response {
        self.problem(400, "wrong_content_format", "Wrong content format", "The body is not what this route takes")
    }

    // MARK: trips

    private func createTrip(_ r: RecordedRequest) -> Response {
        guard let body = r.json?.objectValue, case .string(let deviceID)? = body["device_id"] else {
            return Self.problem(400, "wrong_content_format", "Wrong content format", "device_id is required")
        }
        let id = UUID().uuidString.lowercased()
        let trip = Fixtures.trip(id: id, deviceID: deviceID, request: body, baseGeofenceID: UUID().uuidString.lowercased())
        self.trips[id] = trip
        self.tripOrder.append(id)
        return Self.response(201, json: trip)
    }

    private func withTrip(_ id: String, _ body: (JSONValue) -> Response) -> Response {
        guard let trip = self.trips[id] else {
            return Self.problem(404, "trip_not_found", "Trip could not be found", "Trip with the id '\(id)' does not exist")
        }
        return body(trip)
    }

    private func listTrips(_ r: RecordedRequest) -> Response {
        let status = r.query["status"] ?? "active"
        let all = self.tripOrder.compactMap { self.trips[$0] }.filter { trip in
            (status == "all" || trip.objectValue?["status"]?.stringValue == status)
                && (r.query["device_id"].map { trip.objectValue?["device_id"]?.stringValue == $0 } ?? true)
        }
        return self.page(all, r)
    }

    /// Finishes a completion: the trip becomes `completed` with a summary.
    func finishCompletion(_ id: String) {
        guard let trip = self.trips[id] else { return }
        var object = trip.objectValue ?? [:]
        object["status"] = "completed"
        object["completed_at"] = "2020-04-20T01:10:00.000000+00:00"
        object["summary"] = Fixtures.summaryJSON(deviceID: object["device_id"]?.stringValue ?? "")
        self.trips[id] = .object(object)
    }

    private func completeTrip(_ id: String) -> Response {
        self.withTrip(id) { trip in
            guard trip.objectValue?["status"]?.stringValue == "active" else {
                return Self.problem(400, "trip_already_completed", "Trip is already completed", "Trip \(id)")
            }
            self.trips[id] = Fixtures.setting(trip, "status", "processing_completion")
            return Self.response(202, text: "")
        }
    }

    private func tripGeofence(_ tripID: String, _ geofenceID: String, patch: JSONValue?) -> Response {
        self.withTrip(tripID) { trip in
            var object = trip.objectValue ?? [:]
            var geofences = Fixtures.array(object["geofences"])
            guard let index = geofences.firstIndex(where: { $0.objectValue?["geofence_id"]?.stringValue == geofenceID })
            else { return Self.problem(404, "geofence_not_found", "Geofence could not be found", geofenceID) }
            guard let patch else { return Self.response(200, json: geofences[index]) }
            geofences[index] = Fixtures.setting(geofences[index], "metadata", patch)
            object["geofences"] = .array(geofences)
            self.trips[tripID] = .object(object)
            return Self.response(200, json: geofences[index])
        }
    }

    private func addTripGeofences(_ tripID: String, _ r: RecordedRequest) -> Response {
        guard case .array(let added)? = r.json?.objectValue?["geofences"] else { return Self.badBody() }
        return self.withTrip(tripID) { trip in
            var object = trip.objectValue ?? [:]
            var geofences = Fixtures.array(object["geofences"])
            geofences += added.map { Fixtures.setting($0, "geofence_id", .string(UUID().uuidString.lowercased())) }
            object["geofences"] = .array(geofences)
            self.trips[tripID] = .object(object)
            return Self.response(204, text: "")
        }
    }

    // MARK: paging

    func page(_ all: [JSONValue], _ r: RecordedRequest) -> Response {
        let start = r.query["pagination_token"].flatMap { Int($0.dropFirst()) } ?? 0
        let end = min(all.count, start + self.pageSize)
        let items = start < all.count ? Array(all[start..<end]) : []
        let more = end < all.count
        var page: [String: JSONValue] = ["data": .array(items)]
        switch self.pagination {
        case .token:
            page["pagination_token"] = more ? .string("t\(end)") : .null
            page["links"] = [:]
        case .linksNext:
            var query = r.query.filter { $0.key != "pagination_token" }.map { "\($0.key)=\($0.value)" }.sorted()
            query.append("pagination_token=t\(end)")
            let next = "\(self.baseURL)\(r.path)?\(query.joined(separator: "&"))"
            page["links"] = ["next": more ? .string(next) : .null]
        }
        return Self.response(200, json: .object(page))
    }
}
