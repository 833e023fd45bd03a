import Foundation

extension Engine {
    /// `POST /devices/nearby` → the `request_url` to poll.
    func createNearbyRequest(_ body: JSON) throws(APIProblem) -> JSON {
        guard let fields = body.objectValue else { throw .wrongContentFormat("The body must be a JSON object") }
        for key in fields.keys
        where !["location", "radius", "metadata", "devices", "last_updated_within", "deep"].contains(key) {
            throw .invalid(key, "unknown field")
        }
        guard let location = fields["location"], location["type"]?.stringValue == "Point",
            let center = Coordinate(pair: location["coordinates"])
        else { throw .invalid("location", "required GeoJSON Point") }
        guard let radius = try parseRadius(fields["radius"], field: "radius") else {
            throw .invalid("radius", "required number of metres")
        }
        let metadata = fields["metadata"]
        if let metadata, metadata.objectValue == nil { throw .invalid("metadata", "must be an object") }
        var devices: [String]?
        if let raw = fields["devices"] {
            guard let list = raw.arrayValue?.compactMap(\.stringValue), list.count == raw.arrayValue?.count else {
                throw .invalid("devices", "must be an array of device ids")
            }
            devices = list
        }
        var within = 1.0
        if let raw = fields["last_updated_within"] {
            guard let hours = raw.doubleValue, hours > 0 else { throw .invalid("last_updated_within", "hours > 0") }
            within = hours
        }
        if let deep = fields["deep"], deep.boolValue == nil { throw .invalid("deep", "must be a boolean") }
        var request = NearbyRequestRecord(
            id: state.random.uuid(), location: center, radius: radius, metadata: metadata, devices: devices,
            lastUpdatedWithin: within, createdAt: now, results: [])
        request.results = nearbyDevices(for: request)
        state.nearby[request.id] = request
        return ["request_url": .string("\(baseURL)/devices/nearby?request_id=\(request.id)&limit=100")]
    }

    /// Devices matching a request, nearest first (ties by id).
    func nearbyDevices(for request: NearbyRequestRecord) -> [String] {
        let freshAfter = now.addingTimeInterval(-request.lastUpdatedWithin * 3600)
        let candidates = state.deviceOrder.compactMap { state.devices[$0] }.filter { device in
            guard !device.deleted, device.lastRecordedAt >= freshAfter || isTracking(device) else { return false }
            if let only = request.devices, !only.contains(device.id) { return false }
            if let wanted = request.metadata?.objectValue {
                let has = device.metadata.objectValue ?? [:]
                guard wanted.allSatisfy({ has[$0.key] == $0.value }) else { return false }
            }
            return Geo.distance(device.position, request.location) <= request.radius
        }
        return candidates.map { ($0.id, Geo.distance($0.position, request.location)) }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.map(\.0)
    }

    /// `GET /devices/nearby?request_id=…`: `{data, status, pagination_token, links}`.
    func nearbyResults(requestID: String?, limit: String?, token: String?, query: [(String, String)])
        throws(APIProblem) -> JSON
    {
        guard let requestID else { throw .invalid("request_id", "required query parameter") }
        guard let request = state.nearby[requestID] else {
            throw APIProblem(
                status: 404, code: "nearby_request_not_found", title: "Nearby request could not be found",
                detail: "Nearby request with the id '\(requestID)' does not exist")
        }
        var size: Int?
        if let limit {
            guard let value = Int(limit), value > 0 else { throw .invalid("limit", "positive integer") }
            size = value
        }
        let items = request.results.compactMap { state.devices[$0] }.map { device -> JSON in
            guard case .object(var fields) = renderDevice(device) else { return .null }
            fields["nearby_devices_request_id"] = .string(request.id)
            fields["distance"] = .number(Geo.distance(device.position, request.location).rounded())
            return .object(fields)
        }
        guard case .object(var page) = try page(
            items, token: token, path: "/devices/nearby", query: query, size: size)
        else { return .null }
        page["status"] = request.completedAt == nil ? "pending" : "completed"
        return .object(page)
    }

    /// Completes due nearby requests (final results, `nearby_devices_request` events).
    func completeNearbyRequests(at time: Date) -> [JSON] {
        var events: [JSON] = []
        for id in state.nearby.keys.sorted() {
            guard var request = state.nearby[id], request.completedAt == nil,
                time.timeIntervalSince(request.createdAt) >= options.nearbyDelay
            else { continue }
            request.completedAt = time
            request.results = nearbyDevices(for: request)
            state.nearby[id] = request
            events.append([
                "created_at": Timestamp.json(time), "type": "nearby_devices_request",
                "data": [
                    "value": "completed", "request_id": .string(id), "location": request.location.point,
                    "metadata": request.metadata ?? .null, "radius": .number(request.radius),
                ],
                "version": "2.0.0",
            ])
        }
        return events
    }
}
