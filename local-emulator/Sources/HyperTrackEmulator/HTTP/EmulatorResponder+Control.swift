import Hummingbird

extension EmulatorResponder {
    /// The control API under `/_emulator` (no auth: it is for tests and local tooling).
    func control(_ call: APICall) async throws(APIProblem) -> Response {
        let s = Array(call.segments.dropFirst())
        switch (s.first, s.count, call.method) {
        case ("devices", 1, "POST"):
            let body = try call.json()
            guard let id = body["device_id"]?.stringValue ?? body["id"]?.stringValue, !id.isEmpty else {
                throw .invalid("device_id", "required string")
            }
            var position: Coordinate?
            if let raw = body["position"] ?? body["location"], !raw.isNull {
                guard let parsed = Coordinate(pair: raw) ?? Coordinate(pair: raw["coordinates"]) else {
                    throw .invalid("position", "expected [lng, lat] or a GeoJSON Point")
                }
                position = parsed
            }
            if let name = body["name"], name.stringValue == nil { throw .invalid("name", "must be a string") }
            if let metadata = body["metadata"], metadata.objectValue == nil, !metadata.isNull {
                throw .invalid("metadata", "must be an object")
            }
            if let tracking = body["tracking"], tracking.boolValue == nil, !tracking.isNull {
                throw .invalid("tracking", "must be a boolean")
            }
            let device = await engine.registerDevice(
                id: id, name: body["name"]?.stringValue, position: position, metadata: body["metadata"],
                tracking: body["tracking"]?.boolValue)
            return Self.json(device, status: 201)
        case ("devices", 3, "POST") where s[2] == "offline" || s[2] == "online":
            return Self.json(try await engine.setOffline(String(s[1]), s[2] == "offline"), status: 200)
        case ("clock", 1, "GET"):
            return Self.json(["now": Timestamp.json(await engine.now)], status: 200)
        case ("clock", 2, "POST") where s[1] == "advance":
            let body = try call.json()
            guard let seconds = body["seconds"]?.doubleValue, seconds >= 0, seconds <= 31 * 86_400 else {
                throw .invalid("seconds", "a number of seconds in [0, 2678400]")
            }
            let result = await stepper.advance(by: seconds)
            return Self.json(
                ["now": Timestamp.json(result.now), "webhook_attempts": .number(Double(result.attempts))],
                status: 200)
        case ("trips", 3, "POST") where s[2] == "maneuvers":
            return Self.json(try await engine.addManeuver(tripID: String(s[1]), body: try call.json()), status: 201)
        case ("webhooks", 2, "GET") where s[1] == "round-trips":
            let after = call.query("after").map { Int($0) } ?? 0
            guard let after, after >= 0 else { throw .invalid("after", "a non-negative integer") }
            let (total, roundTrips) = await engine.roundTrips(after: after)
            return Self.json(
                [
                    "total": .number(Double(total)),
                    "milliseconds": .array(roundTrips.map { JSON.number($0.milliseconds) }),
                    "wire_milliseconds": .array(roundTrips.map { JSON.number($0.wireMilliseconds) }),
                ],
                status: 200
            )
        case ("webhooks", 2, "GET") where s[1] == "outcomes":
            return Self.json(await engine.webhookOutcomes(), status: 200)
        case ("webhooks", 2, "GET") where s[1] == "events":
            return Self.json(["delivered": await engine.deliveredEvents()], status: 200)
        case ("trips", 1, "GET"):
            return Self.json(["data": await engine.tripSummaries()], status: 200)
        case ("webhooks", 1, "GET"):
            return Self.json(["data": .array(await engine.deliveryLog().map(\.json))], status: 200)
        case ("faults", 1, "GET"):
            return Self.json(await engine.listFaults(), status: 200)
        case ("faults", 1, "POST"):
            return Self.json(try await engine.addFault(try call.json()), status: 201)
        case ("faults", 1, "DELETE"):
            await engine.clearFaults()
            return Self.empty(204)
        case ("history", 2, "GET"):
            return Self.json(try await engine.accountHistoryExport(day: String(s[1])), status: 200)
        case ("state", 1, "GET"):
            guard let data = try? await engine.exportState(), let json = JSON.parse(data) else {
                throw APIProblem(status: 500, code: "export_failed", title: "Export failed", detail: "see logs")
            }
            return Self.json(json, status: 200)
        default:
            throw call.routeNotFound
        }
    }
}
