import Foundation

extension Engine {
    func renderDevice(_ device: DeviceRecord) -> JSON {
        let status = statusKey(device).split(separator: ":", maxSplits: 1).map(String.init)
        var statusData: [String: JSON] = ["recorded_at": Timestamp.json(device.lastRecordedAt)]
        if status.count == 2 { statusData[status[0] == "active" ? "activity" : "reason"] = .string(status[1]) }
        return [
            "device_id": .string(device.id),
            "location": [
                "geometry": device.position.point, "accuracy": 5, "speed": .number(device.speed),
                "bearing": .number(device.bearing.rounded()), "recorded_at": Timestamp.json(device.lastRecordedAt),
            ],
            "device_status": ["value": .string(status[0]), "data": .object(statusData)],
            "views": [
                "share_url": .string("https://trck.at/\(device.trackingID)"),
                "embed_url": .string(
                    "https://embed.hypertrack.com/devices/\(device.id)?publishable_key=\(configuration.publishableKey)"),
            ],
            "battery": "normal",
            "device_info": [
                "name": device.name.json, "os_name": "iOS", "os_version": "17.4", "sdk_version": "5.0.0",
                "device_brand": "Apple", "device_model": "iPhone", "network_operator": "Emulator",
                "timezone": "UTC",
            ],
            "registered_at": Timestamp.json(device.registeredAt),
            "metadata": device.metadata,
        ]
    }

    func listDevices(paginated: Bool, token: String?, query: [(String, String)]) throws(APIProblem) -> JSON {
        let items = state.deviceOrder.compactMap { state.devices[$0] }.filter { !$0.deleted }.map(renderDevice)
        return paginated ? try page(items, token: token, path: "/devices", query: query) : .array(items)
    }

    func getDevice(_ id: String) throws(APIProblem) -> JSON { renderDevice(try device(id)) }

    /// `PATCH /devices/{id}` with `name` and/or `metadata` (metadata replaces the old object).
    func patchDevice(_ id: String, body: JSON) throws(APIProblem) {
        guard let fields = body.objectValue else { throw .wrongContentFormat("The body must be a JSON object") }
        for key in fields.keys where key != "name" && key != "metadata" {
            throw .invalid(key, "unknown field")
        }
        if let name = fields["name"], name.stringValue == nil { throw .invalid("name", "must be a string") }
        if let metadata = fields["metadata"], metadata.objectValue == nil, !metadata.isNull {
            throw .invalid("metadata", "must be an object or null")
        }
        var device = try deviceForUse(id)
        if let name = fields["name"]?.stringValue { device.name = name }
        if let metadata = fields["metadata"] { device.metadata = metadata }
        state.devices[id] = device
    }

    func startDevice(_ id: String) throws(APIProblem) {
        var device = try deviceForUse(id)
        device.startedExplicitly = true
        device.stoppedExplicitly = false
        state.devices[id] = device
        enqueueEvents(reportChanges(of: id))
    }

    func stopDevice(_ id: String) throws(APIProblem) {
        var device = try deviceForUse(id)
        device.startedExplicitly = false
        device.stoppedExplicitly = true
        state.devices[id] = device
        enqueueEvents(reportChanges(of: id))
    }

    func deleteDevice(_ id: String) throws(APIProblem) {
        var device = try device(id)
        device.deleted = true
        state.devices[id] = device
        enqueueEvents(reportChanges(of: id))
    }

    func undeleteDevice(_ id: String) throws(APIProblem) {
        var device = try device(id)
        device.deleted = false
        state.devices[id] = device
        enqueueEvents(reportChanges(of: id))
    }

    /// Day summary of one device (`GET /devices/{id}/history/{YYYY-MM-DD}`), from its recorded locations.
    func deviceHistory(_ id: String, day: String) throws(APIProblem) -> JSON {
        let device = try device(id)
        guard let (start, end) = Timestamp.day(day) else { throw .invalid("date", "expected YYYY-MM-DD") }
        let samples = device.locations.filter { $0.recordedAt >= start && $0.recordedAt < end }
        var distance = 0.0
        var driveDuration = 0.0
        for (previous, sample) in zip(samples, samples.dropFirst()) {
            let step = Geo.distance(previous.coordinate, sample.coordinate)
            distance += step
            if step > 0 { driveDuration += sample.recordedAt.timeIntervalSince(previous.recordedAt) }
        }
        let active = samples.count > 1
            ? (samples.last!.recordedAt.timeIntervalSince(samples.first!.recordedAt)) : 0
        let trips = state.trips.values.filter { $0.deviceID == id && $0.startedAt >= start && $0.startedAt < end }
        return [
            "device_id": .string(id), "started_at": Timestamp.json(start), "completed_at": Timestamp.json(end),
            "locations": Self.lineString(samples), "markers": .array(driveMarkers(samples)),
            "distance": .number(distance.rounded()), "duration": 86_400, "tracking_rate": 100.0,
            "inactive_reasons": [], "inactive_duration": 0, "active_duration": .number(active.rounded()),
            "stop_duration": .number((active - driveDuration).rounded()), "walk_duration": 0,
            "drive_duration": .number(driveDuration.rounded()), "trips": .number(Double(trips.count)), "geotags": 0,
            "geofences_visited": 0,
        ]
    }

    /// `GET /devices/history/{date}`: a link to the account-wide export served by the emulator.
    func accountHistory(day: String) throws(APIProblem) -> JSON {
        guard Timestamp.day(day) != nil else { throw .invalid("date", "expected YYYY-MM-DD") }
        return ["url": .string("\(baseURL)/_emulator/history/\(day)")]
    }

    /// The document behind ``accountHistory(day:)``: every device's day summary.
    func accountHistoryExport(day: String) throws(APIProblem) -> JSON {
        var rows: [JSON] = []
        for id in state.deviceOrder { rows.append(try deviceHistory(id, day: day)) }
        return .array(rows)
    }

    static func lineString(_ samples: [LocationSample]) -> JSON {
        let coordinates = samples.map { sample -> JSON in
            [
                .number(Geo.round6(sample.coordinate.longitude)), .number(Geo.round6(sample.coordinate.latitude)),
                .null, Timestamp.json(sample.recordedAt),
            ]
        }
        return ["type": "LineString", "coordinates": .array(coordinates)]
    }
}
