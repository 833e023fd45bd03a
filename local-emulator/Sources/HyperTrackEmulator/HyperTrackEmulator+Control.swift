import Foundation
import Logging

extension HyperTrackEmulator {
    /// `http://host:port` once the server listens (waits until then).
    /// - Throws: ``HyperTrackEmulatorError/Code/serverNotStarted`` if the server stopped or failed to bind.
    public func baseURL() async throws(HyperTrackEmulatorError) -> String { try await started.wait() }

    /// The emulated time now.
    public func now() async -> Date { await engine.now }

    /// Moves the clock forward by `seconds`, running every simulation step in between (movement, arrivals,
    /// completions, nearby requests, webhook retries). Returns when every webhook due up to the new time has been
    /// attempted (delivered, refused or rescheduled).
    /// - Parameter seconds: emulated seconds, ≥ 0 (0 just flushes webhooks due now).
    /// - Returns: the new emulated time.
    @discardableResult
    public func advanceClock(by seconds: Double) async -> Date {
        await stepper.advance(by: max(0, seconds)).now
    }

    /// Creates a device at a position, or moves an existing one there (a trip's route is re-planned from there at
    /// the next step, and arrival is checked there). A tracking device reports at once: `device_status` `active`
    /// and a `location` when it starts tracking, a `location` when it is moved.
    /// - Parameters:
    ///   - id: the device id (as the SDK would report it).
    ///   - name: shown as `device_info.name`.
    ///   - longitude: degrees.
    ///   - latitude: degrees.
    ///   - tracking: start (`true`) or stop (`false`) tracking, as the driver app would; `nil` (the default)
    ///     starts a device that never reported (a new one, or one created by a write) and leaves one that did as
    ///     it is.
    public func registerDevice(
        id: String, name: String? = nil, longitude: Double, latitude: Double, tracking: Bool? = nil
    ) async {
        _ = await engine.registerDevice(
            id: id, name: name, position: Coordinate(longitude: longitude, latitude: latitude), metadata: nil,
            tracking: tracking)
    }

    /// Takes a device's phone offline (`connected: false`: a `disconnected` webhook, then nothing until it is back)
    /// or back online (`device_status` as it is now, and a `location` if it is tracking), as
    /// `POST /_emulator/devices/{id}/offline|online` do.
    /// - Throws: ``HyperTrackEmulatorError/Code/deviceNotFound`` for an unknown device.
    public func setConnected(_ connected: Bool, deviceID: String) async throws(HyperTrackEmulatorError) {
        do {
            _ = try await engine.setOffline(deviceID, !connected)
        } catch {
            throw HyperTrackEmulatorError(.deviceNotFound, error.detail)
        }
    }

    /// Every webhook attempt so far, oldest first (also `GET /_emulator/webhooks`).
    public func webhookDeliveries() async -> [WebhookDelivery] { await engine.deliveryLog() }

    /// Switches a fault on (as `POST /_emulator/faults` does).
    /// - Throws: ``HyperTrackEmulatorError/Code/invalidFault`` when a field is out of range.
    public func addFault(_ fault: Fault) async throws(HyperTrackEmulatorError) {
        do {
            _ = try await engine.addFault(fault.json)
        } catch {
            throw HyperTrackEmulatorError(.invalidFault, "\(error.title): \(error.detail)")
        }
    }

    /// Makes an active trip's device brake hard, accelerate rapidly, speed or take a corner hard `afterSeconds` into
    /// its drive (as `POST /_emulator/trips/{id}/maneuvers` does; see ``DrivingLimits`` for the rates).
    /// - Parameters:
    ///   - tripID: an active trip with a destination the device is driving to.
    ///   - kind: `hard_brake`, `rapid_acceleration`, `speeding` or `hard_turn`.
    ///   - afterSeconds: seconds after the drive started, not in the past; the manoeuvre starts at the first whole
    ///     second from then where it can be driven (a hard turn: takes the first suitable corner after it).
    ///   - speedKmh: `speeding` only: the speed held.
    ///   - durationSeconds: `speeding` only: how long it is held (default 20 s).
    /// - Returns: where the manoeuvre landed.
    /// - Throws: ``HyperTrackEmulatorError/Code/invalidManeuver``.
    @discardableResult
    public func addManeuver(
        tripID: String,
        kind: String,
        afterSeconds: Double,
        speedKmh: Double? = nil,
        durationSeconds: Double? = nil
    ) async throws(HyperTrackEmulatorError) -> InjectedManeuver {
        var body: [String: JSON] = ["kind": .string(kind), "after_seconds": .number(afterSeconds)]
        if let speedKmh { body["speed_kmh"] = .number(speedKmh) }
        if let durationSeconds { body["duration_seconds"] = .number(durationSeconds) }
        let answer: JSON
        do {
            answer = try await engine.addManeuver(tripID: tripID, body: .object(body))
        } catch {
            throw HyperTrackEmulatorError(.invalidManeuver, "\(error.title): \(error.detail)")
        }
        let last = answer["maneuvers"]?.arrayValue?.last ?? .null
        return InjectedManeuver(
            kind: kind, afterSeconds: last["after_seconds"]?.doubleValue ?? afterSeconds,
            postedLimitKmh: last["posted_limit_kmh"]?.doubleValue, cornerSeconds: last["corner_seconds"]?.doubleValue)
    }

    /// Switches every fault off (as `DELETE /_emulator/faults` does).
    public func clearFaults() async { await engine.clearFaults() }

    /// Writes the state to `directory/state.json` (creating the directory).
    /// - Throws: ``HyperTrackEmulatorError/Code/stateExport``.
    public func exportState(to directory: String) async throws(HyperTrackEmulatorError) {
        do {
            let data = try await engine.exportState()
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: directory).appendingPathComponent("state.json"), options: .atomic)
        } catch {
            throw HyperTrackEmulatorError(.stateExport, "cannot write \(directory)/state.json: \(error)")
        }
        logger.info("emulator state exported", metadata: ["emulator.directory": "\(directory)"])
    }

    /// Replaces the state with `directory/state.json` written by ``exportState(to:)``.
    /// Faults and the webhook log are not part of the state.
    /// - Throws: ``HyperTrackEmulatorError/Code/stateImport``; the state is unchanged then.
    public func importState(from directory: String) async throws(HyperTrackEmulatorError) {
        let path = URL(fileURLWithPath: directory).appendingPathComponent("state.json")
        do {
            try await engine.importState(try Data(contentsOf: path))
        } catch let error as HyperTrackEmulatorError {
            throw error
        } catch {
            throw HyperTrackEmulatorError(.stateImport, "cannot read \(path.path): \(error)")
        }
        logger.info("emulator state imported", metadata: ["emulator.directory": "\(directory)"])
    }
}
