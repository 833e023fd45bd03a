import Foundation

/// The emulator's state and every operation on it. HTTP routes and the public API both call into this actor; all
/// methods are synchronous inside it, so each request or simulation step is atomic.
actor Engine {
    let configuration: HyperTrackEmulator.Configuration
    var state: EmulatorState
    var faults: FaultBook
    var webhooks: WebhookQueue
    /// `http://host:port`, known once the server listens.
    var baseURL = ""

    init(configuration: HyperTrackEmulator.Configuration) {
        self.configuration = configuration
        let start: Date
        switch configuration.clock.mode {
        case .manual(let date): start = date ?? Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        case .scaled(_, let date): start = date ?? Date()
        }
        self.state = EmulatorState(now: start, nextTickAt: start, random: SplitMix64(seed: configuration.seed))
        self.faults = FaultBook(seed: configuration.seed)
        self.webhooks = WebhookQueue(seed: configuration.seed)
    }

    var now: Date { state.now }
    var options: HyperTrackEmulator.Options { configuration.options }

    func setBaseURL(_ url: String) { baseURL = url }

    // MARK: state export/import

    /// Dates keep Foundation's default encoding (a `Double`), so an export/import round trip is exact.
    func exportState() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(state)
    }

    func importState(_ data: Data) throws {
        let decoder = JSONDecoder()
        let imported = try decoder.decode(EmulatorState.self, from: data)
        guard imported.formatVersion == EmulatorState.formatVersion else {
            throw HyperTrackEmulatorError(.stateImport, "unsupported format version \(imported.formatVersion)")
        }
        state = imported
        tripIndex = TripIndex()
    }

    // MARK: devices

    /// The device, or a 404 problem.
    func device(_ id: String) throws(APIProblem) -> DeviceRecord {
        guard let device = state.devices[id] else { throw .deviceNotFound(id) }
        return device
    }

    /// The device, created at a default position when unknown and ``HyperTrackEmulator/Options/autoCreateDevices``
    /// is on; otherwise a 404 `device_not_found`, as HyperTrack answers for a device no SDK registered.
    func deviceForUse(_ id: String) throws(APIProblem) -> DeviceRecord {
        if let device = state.devices[id] { return device }
        guard options.autoCreateDevices else { throw .deviceNotFound(id) }
        return addDevice(id: id, name: nil, position: defaultPosition(for: id), metadata: .null)
    }

    /// A deterministic spot within ~2 km of the configured default centre.
    func defaultPosition(for id: String) -> Coordinate {
        let hash = StableHash.fnv1a("\(configuration.seed):\(id)")
        let north = Double(hash % 4001) - 2000
        let east = Double((hash >> 20) % 4001) - 2000
        let center = Coordinate(longitude: options.defaultLongitude, latitude: options.defaultLatitude)
        return Geo.offset(center, north: north, east: east)
    }

    @discardableResult
    func addDevice(id: String, name: String?, position: Coordinate, metadata: JSON) -> DeviceRecord {
        var device = DeviceRecord(
            id: id, name: name, metadata: metadata, registeredAt: now, position: position, lastRecordedAt: now,
            trackingID: state.random.trackingID())
        device.record(LocationSample(coordinate: position, recordedAt: now, speed: 0, bearing: 0))
        state.devices[id] = device
        state.deviceOrder.append(id)
        return device
    }

    /// Registers or moves a device (`POST /_emulator/devices`). An existing device keeps its trips.
    /// - Parameter tracking: starts (`true`) or stops (`false`) tracking as the SDK would; `nil` starts a device that
    ///   never reported (new, or created by a write with ``HyperTrackEmulator/Options/autoCreateDevices``: a phone
    ///   placed on the map is a driver with the app open) and keeps the tracking of one that did.
    func registerDevice(id: String, name: String?, position: Coordinate?, metadata: JSON?, tracking: Bool?) -> JSON {
        var moved = false
        let neverReported = state.devices[id]?.reportedStatus == nil
        if var device = state.devices[id] {
            if let name { device.name = name }
            if let metadata { device.metadata = metadata }
            if let position {
                moved = true
                device.position = position
                device.motion = nil
                device.speed = 0
                device.lastRecordedAt = now
                device.record(LocationSample(coordinate: position, recordedAt: now, speed: 0, bearing: 0))
            }
            state.devices[id] = device
        } else {
            addDevice(id: id, name: name, position: position ?? defaultPosition(for: id), metadata: metadata ?? .null)
        }
        if let tracking = tracking ?? (neverReported ? true : nil) {
            state.devices[id]!.startedExplicitly = tracking
            state.devices[id]!.stoppedExplicitly = !tracking
        }
        enqueueEvents(reportChanges(of: id, moved: moved))
        return renderDevice(state.devices[id]!)
    }

    /// Active trips of a device, oldest first.
    func activeTrips(of deviceID: String) -> [TripRecord] {
        self.indexTrips()
        guard let open = self.tripIndex.openByDevice[deviceID] else { return [] }
        var active: [TripRecord] = []
        var stillOpen: [String] = []
        for id in open {
            guard let trip = state.trips[id], trip.status != .completed else { continue }
            stillOpen.append(id)
            if trip.deviceID == deviceID && trip.status == .active { active.append(trip) }
        }
        if stillOpen.count != open.count { self.tripIndex.openByDevice[deviceID] = stillOpen.isEmpty ? nil : stillOpen }
        return active
    }

    /// Trip ids by device, in creation order, for ``activeTrips(of:)``: it runs for every device at every step, and
    /// scanning every trip there made a step cost devices × trips (perf of a 10,000-driver simulation: 80% of the
    /// emulator's time, its clock slowed to a twentieth of the rate asked). Derived from `state.tripOrder`, which
    /// only grows; an import starts it over. `GET /trips?device_id=` reads it too: the backend lists a driver's
    /// trips before creating one (so a retried creation finds the first), and copying every trip of a run for each
    /// (21,000 after 15 minutes of the 10,000-driver city) took the emulator to 37% of a core.
    ///
    /// The trips not yet completed are kept apart as well (`completed` is final: a trip never leaves it), by
    /// device and all together, and dropped when found completed: each step asks every device for its active
    /// trips and looks for completions due, and copying every trip a device or the run ever had for that was
    /// about half of a step at 10,000 phones and a step every emulated second (perf, 56th session: the emulator at
    /// 20-22% of a core, against 8-9% with a step every 5 s; 13% with this).
    struct TripIndex {
        var indexed = 0
        var byDevice: [String: [String]] = [:]
        var openByDevice: [String: [String]] = [:]
        var open: [String] = []
    }
    var tripIndex = TripIndex()

    func indexTrips() {
        if self.tripIndex.indexed > state.tripOrder.count { self.tripIndex = TripIndex() }
        while self.tripIndex.indexed < state.tripOrder.count {
            let id = state.tripOrder[self.tripIndex.indexed]
            if let trip = state.trips[id] {
                self.tripIndex.byDevice[trip.deviceID, default: []].append(id)
                if trip.status != .completed {
                    self.tripIndex.openByDevice[trip.deviceID, default: []].append(id)
                    self.tripIndex.open.append(id)
                }
            }
            self.tripIndex.indexed += 1
        }
    }

    /// The trips not completed, in creation order (``TripIndex``), for the step's completions.
    func openTripIDs() -> [String] {
        self.indexTrips()
        return self.tripIndex.open
    }

    /// Drops completed trips from ``TripIndex/open`` (after a step completed some).
    func forgetCompletedTrips() {
        self.tripIndex.open.removeAll { state.trips[$0].map { $0.status == .completed } ?? true }
    }

    func isTracking(_ device: DeviceRecord) -> Bool {
        !device.deleted && !device.stoppedExplicitly
            && (device.startedExplicitly || !activeTrips(of: device.id).isEmpty)
    }

    // MARK: pagination

    /// Cuts `items` into a page at `token` (an opaque offset) and renders `{data, pagination_token, links}`.
    func page(_ items: [JSON], token: String?, path: String, query: [(String, String)], size: Int? = nil)
        throws(APIProblem) -> JSON
    {
        var offset = 0
        if let token {
            guard let decoded = Data(base64Encoded: token).flatMap({ String(data: $0, encoding: .utf8) }),
                decoded.hasPrefix("offset:"), let value = Int(decoded.dropFirst(7)), value >= 0
            else { throw .invalid("pagination_token", "unknown pagination token") }
            offset = value
        }
        let size = max(1, size ?? options.pageSize)
        let slice = Array(items.dropFirst(offset).prefix(size))
        var next: JSON = .null
        var nextToken: JSON = .null
        if offset + size < items.count {
            let token = Data("offset:\(offset + size)".utf8).base64EncodedString()
            nextToken = .string(token)
            let parameters = (query.filter { $0.0 != "pagination_token" } + [("pagination_token", token)])
                .map { "\($0.0)=\(Self.percentEncode($0.1))" }.joined(separator: "&")
            next = .string("\(baseURL)\(path)?\(parameters)")
        }
        return ["data": .array(slice), "pagination_token": nextToken, "links": ["next": next]]
    }

    static func percentEncode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

extension Engine {
    func addFault(_ body: JSON) throws(APIProblem) -> JSON { try faults.add(body, now: now) }
    func clearFaults() { faults.clear() }
    func listFaults() -> JSON { faults.json }
    func httpFaultOutcome(method: String, path: [Substring]) -> FaultBook.HTTPOutcome {
        faults.httpOutcome(method: method, path: path, now: now)
    }
}
