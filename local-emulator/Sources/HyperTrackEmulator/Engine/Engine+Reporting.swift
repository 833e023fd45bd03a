import Foundation

/// What a phone running the SDK reports on its own: `device_status` when tracking starts or stops, the activity
/// changes or the phone goes offline, a `location` when tracking starts and when it is moved, and a `location`
/// every ``HyperTrackEmulator/Options/locationReportInterval`` while it stands still.
///
/// Status changes are found by comparing what a device shows now with the last status it sent
/// (``DeviceRecord/reportedStatus``) after every operation and every step, rather than by emitting events at each
/// place that changes tracking: a new way to start or stop tracking cannot forget to report it.
extension Engine {
    /// A tracking device that is online: it sends webhooks.
    func isReporting(_ device: DeviceRecord) -> Bool { isTracking(device) && device.offline != true }

    /// Whether the device is driving a route at its last recorded time.
    func isMoving(_ device: DeviceRecord) -> Bool {
        device.motion.map { !$0.isFinished(at: device.lastRecordedAt) } ?? false
    }

    /// The status a device shows now: `active:drive`, `active:stop`, `inactive:<reason>` or `disconnected`.
    func statusKey(_ device: DeviceRecord) -> String {
        if device.offline == true { return "disconnected" }
        guard isTracking(device) else { return device.deleted ? "inactive:deleted" : "inactive:tracking_stopped" }
        return isMoving(device) ? "active:drive" : "active:stop"
    }

    /// The events a device owes after a change: a `device_status` when its status differs from the last one sent
    /// (a device that never reported and is not active sends none: HyperTrack has nothing to say about a phone
    /// that never tracked), and a `location` when it became active or was `moved` while active.
    func reportChanges(of id: String, moved: Bool = false) -> [JSON] {
        guard var device = state.devices[id] else { return [] }
        let key = statusKey(device)
        var events: [JSON] = []
        let wasActive = device.reportedStatus?.hasPrefix("active") == true
        if key != device.reportedStatus, device.reportedStatus != nil || key.hasPrefix("active") {
            events.append(statusEvent(device, key: key))
            device.reportedStatus = key
        }
        if key.hasPrefix("active"), moved || !wasActive {
            if device.motion != nil {
                settle(&device, at: now)
            } else if now > device.lastRecordedAt {
                device.lastRecordedAt = now
                device.record(
                    LocationSample(coordinate: device.position, recordedAt: now, speed: 0, bearing: device.bearing))
            }
            device.lastReportedAt = now
            events.append(locationEvent(device))
        }
        // Every change above comes with its event; a device with nothing to say is not written back (this runs for
        // every device at every step).
        if !events.isEmpty { state.devices[id] = device }
        return events
    }

    /// A stationary report is due: the device reports, stands still, and its last location webhook is at least
    /// the interval old.
    func periodicReportDue(_ device: DeviceRecord, at time: Date) -> Bool {
        guard let interval = options.locationReportInterval, isReporting(device), !isMoving(device) else {
            return false
        }
        guard let last = device.lastReportedAt else { return true }
        return time.timeIntervalSince(last) >= interval
    }

    /// A driving device's step report is due: every step, or every ``HyperTrackEmulator/Options/movingReportInterval``
    /// when one is set.
    func movingReportDue(_ device: DeviceRecord, at time: Date) -> Bool {
        guard let interval = options.movingReportInterval, let last = device.lastReportedAt else { return true }
        return time.timeIntervalSince(last) >= interval
    }

    /// Records where a still device is at `time`, as its `location` webhook (``locationEvent(_:)`` of the record
    /// after this) reports it. Reads nothing of the engine: it changes a record in place (see ``tick()``).
    func recordStationaryReport(_ device: inout DeviceRecord, at time: Date) {
        device.speed = 0
        device.lastRecordedAt = time
        device.lastReportedAt = time
        device.record(LocationSample(coordinate: device.position, recordedAt: time, speed: 0, bearing: device.bearing))
    }

    /// A `device_status` event for a status key (see ``statusKey(_:)``).
    func statusEvent(_ device: DeviceRecord, key: String) -> JSON {
        let parts = key.split(separator: ":", maxSplits: 1).map(String.init)
        var data: [String: JSON] = ["value": .string(parts[0])]
        if parts.count == 2 { data[parts[0] == "active" ? "activity" : "reason"] = .string(parts[1]) }
        return [
            "created_at": Timestamp.json(now), "recorded_at": Timestamp.json(now), "device_id": .string(device.id),
            "type": "device_status", "data": .object(data), "location": device.position.point, "version": "2.0.0",
        ]
    }

    /// `POST /_emulator/devices/{id}/offline` / `…/online`: the phone loses or regains its connection.
    func setOffline(_ id: String, _ offline: Bool) throws(APIProblem) -> JSON {
        var device = try device(id)
        device.offline = offline
        state.devices[id] = device
        enqueueEvents(reportChanges(of: id))
        return renderDevice(state.devices[id]!)
    }
}
