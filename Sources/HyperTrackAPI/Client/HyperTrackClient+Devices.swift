import NIOHTTP1

extension HyperTrackClient {
    /// Reads a device (`GET /devices/{device_id}`).
    /// - Parameter id: The device.
    public func device(id: String) async throws -> Device {
        try self.requireID(id, "device id")
        return try await self.get(self.target(["devices", id]), as: Device.self)
    }

    /// Lists every device (deleted ones excluded) with `GET /devices?pagination=0`, which answers a bare array.
    /// If the server answers the paged form instead, the remaining pages are followed.
    public func allDevices() async throws -> [Device] {
        var target: String? = self.target(["devices"], query: [("pagination", "0")])
        var devices: [Device] = []
        var seen: Set<String> = []
        while let current = target {
            guard seen.insert(current).inserted else {
                throw HyperTrackAPIError(code: .paginationLoop, reason: "the next page repeats an earlier one")
            }
            switch try await self.get(current, as: DeviceList.self) {
            case .array(let page):
                devices += page
                target = nil
            case .page(let page):
                devices += page.data
                target = self.nextTarget(after: current, page: page)
            }
        }
        return devices
    }

    /// Lists devices page by page (`GET /devices?pagination=1`).
    public func devices() -> Pages<Device> {
        self.pages(self.target(["devices"], query: [("pagination", "1")]), of: Device.self)
    }

    /// Sets a device's name and/or metadata in one `PATCH /devices/{device_id}`; with both `nil` nothing is sent.
    /// - Parameters:
    ///   - id: The device.
    ///   - name: The new name, or `nil` to keep it.
    ///   - metadata: The new metadata, or `nil` to keep it.
    public func updateDevice(id: String, name: String?, metadata: [String: JSONValue]?) async throws {
        try self.requireID(id, "device id")
        guard name != nil || metadata != nil else { return }
        let body = try self.encode(DevicePatch(name: name, metadata: metadata))
        _ = try await self.send(.PATCH, self.target(["devices", id]), body: body, repeatability: .safe)
    }

    /// Renames a device (`PATCH /devices/{device_id}` with `{"name": …}`); the name shows in `device_info.name`.
    /// - Parameters:
    ///   - id: The device.
    ///   - name: The new name.
    public func setDeviceName(id: String, name: String) async throws {
        try await self.updateDevice(id: id, name: name, metadata: nil)
    }

    /// Sets a device's metadata (`PATCH /devices/{device_id}` with `{"metadata": …}`).
    /// - Parameters:
    ///   - id: The device.
    ///   - metadata: The metadata.
    public func setDeviceMetadata(id: String, metadata: [String: JSONValue]) async throws {
        try await self.updateDevice(id: id, name: nil, metadata: metadata)
    }

    /// Starts tracking (`POST /devices/{device_id}/start`, no body; a silent push wakes the SDK).
    /// - Parameter id: The device.
    public func startTracking(deviceID id: String) async throws {
        try await self.deviceCommand(id, "start")
    }

    /// Stops tracking (`POST /devices/{device_id}/stop`, no body).
    /// - Parameter id: The device.
    public func stopTracking(deviceID id: String) async throws {
        try await self.deviceCommand(id, "stop")
    }

    /// Deletes a device (`DELETE /devices/{device_id}`): it can no longer send data until undeleted.
    /// - Parameter id: The device.
    public func deleteDevice(id: String) async throws {
        try self.requireID(id, "device id")
        _ = try await self.send(.DELETE, self.target(["devices", id]), body: nil, repeatability: .safe)
    }

    /// Makes a deleted device trackable again (`POST /devices/{device_id}/undelete`, no body).
    /// - Parameter id: The device.
    public func undeleteDevice(id: String) async throws {
        try await self.deviceCommand(id, "undelete")
    }

    /// A device's day (`GET /devices/{device_id}/history/{YYYY-MM-DD}`).
    /// - Parameters:
    ///   - id: The device.
    ///   - day: The day, `YYYY-MM-DD`.
    public func deviceHistory(id: String, day: String) async throws -> DeviceHistory {
        try self.requireID(id, "device id")
        try Self.requireDay(day)
        return try await self.get(self.target(["devices", id, "history", day]), as: DeviceHistory.self)
    }

    /// The account's export of a day (`GET /devices/history/{YYYY-MM-DD}`), within the last 60 days.
    /// - Parameters:
    ///   - day: The day, `YYYY-MM-DD`.
    ///   - options: Extra query items, e.g. `[("response", "blob"), ("type", "json"), ("unit", "km")]`.
    public func accountHistory(day: String, options: [(String, String)] = []) async throws -> AccountHistoryExport {
        try Self.requireDay(day)
        return try await self.get(self.target(["devices", "history", day], query: options), as: AccountHistoryExport.self)
    }

    private func deviceCommand(_ id: String, _ command: String) async throws {
        try self.requireID(id, "device id")
        _ = try await self.send(.POST, self.target(["devices", id, command]), body: nil, repeatability: .safe)
    }

    static func requireDay(_ day: String) throws {
        let parts = day.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let month = Int(parts[1]), let date = Int(parts[2]), Int(parts[0]) != nil,
            (1...12).contains(month), (1...31).contains(date)
        else {
            throw HyperTrackAPIError(code: .invalidRequest, reason: "a day is written YYYY-MM-DD")
        }
    }
}

/// `GET /devices` answers a bare array, or the paged object when asked for pagination.
enum DeviceList: Decodable {
    case array([Device])
    case page(Page<Device>)

    init(from decoder: any Decoder) throws {
        if let devices = try? [Device](from: decoder) {
            self = .array(devices)
        } else {
            self = .page(try Page<Device>(from: decoder))
        }
    }
}

/// The body of `PATCH /devices/{device_id}`: absent fields are left as they are.
struct DevicePatch: Encodable {
    var name: String?
    var metadata: [String: JSONValue]?
}
