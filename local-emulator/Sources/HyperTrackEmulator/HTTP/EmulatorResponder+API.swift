import Hummingbird

extension EmulatorResponder {
    /// The HyperTrack v3 endpoints.
    func api(_ call: APICall) async throws(APIProblem) -> Response {
        let s = call.segments
        switch (s.first, s.count) {
        case ("trips", 1):
            switch call.method {
            case "GET":
                return Self.json(
                    try await engine.listTrips(
                        status: call.query("status"), deviceID: call.query("device_id"),
                        token: call.query("pagination_token"), query: call.query), status: 200)
            case "POST": return Self.json(try await engine.createTrip(try call.json()), status: 201)
            default: throw call.methodNotAllowed
            }
        case ("trips", 2):
            guard call.method == "GET" else { throw call.methodNotAllowed }
            return Self.json(try await engine.getTrip(String(s[1])), status: 200)
        case ("trips", 3) where s[2] == "complete":
            guard call.method == "POST" else { throw call.methodNotAllowed }
            try await engine.completeTrip(String(s[1]))
            return Self.empty(202)
        case ("trips", 3) where s[2] == "geofence":
            guard call.method == "PATCH" else { throw call.methodNotAllowed }
            return Self.json(try await engine.addTripGeofences(String(s[1]), body: try call.json()), status: 200)
        case ("trips", 4) where s[2] == "geofence":
            switch call.method {
            case "GET": return Self.json(try await engine.getTripGeofence(String(s[1]), String(s[3])), status: 200)
            case "PATCH":
                return Self.json(
                    try await engine.patchTripGeofence(String(s[1]), String(s[3]), body: try call.json()), status: 200)
            default: throw call.methodNotAllowed
            }
        case ("devices", _): return try await devices(call)
        case ("geofences", 1):
            switch call.method {
            case "GET":
                return Self.json(
                    try await engine.listGeofences(token: call.query("pagination_token"), query: call.query),
                    status: 200)
            case "POST": return Self.json(try await engine.createGeofences(try call.json()), status: 201)
            default: throw call.methodNotAllowed
            }
        case ("geofences", 2):
            let id = String(s[1])
            switch call.method {
            case "GET": return Self.json(try await engine.getGeofence(id), status: 200)
            case "PATCH": return Self.json(try await engine.patchGeofence(id, body: try call.json()), status: 200)
            case "DELETE":
                try await engine.deleteGeofence(id)
                return Self.empty(204)
            default: throw call.methodNotAllowed
            }
        default:
            throw call.routeNotFound
        }
    }

    private func devices(_ call: APICall) async throws(APIProblem) -> Response {
        let s = call.segments
        switch s.count {
        case 1:
            guard call.method == "GET" else { throw call.methodNotAllowed }
            let paginated = call.query("pagination") == "1" || call.query("pagination") == "true"
            return Self.json(
                try await engine.listDevices(
                    paginated: paginated, token: call.query("pagination_token"), query: call.query), status: 200)
        case 2 where s[1] == "nearby":
            switch call.method {
            case "POST": return Self.json(try await engine.createNearbyRequest(try call.json()), status: 202)
            case "GET":
                return Self.json(
                    try await engine.nearbyResults(
                        requestID: call.query("request_id"), limit: call.query("limit"),
                        token: call.query("pagination_token"), query: call.query), status: 200)
            default: throw call.methodNotAllowed
            }
        case 3 where s[1] == "history":
            guard call.method == "GET" else { throw call.methodNotAllowed }
            return Self.json(try await engine.accountHistory(day: String(s[2])), status: 200)
        case 2:
            let id = String(s[1])
            switch call.method {
            case "GET": return Self.json(try await engine.getDevice(id), status: 200)
            case "PATCH":
                try await engine.patchDevice(id, body: try call.json())
                return Self.empty(204)
            case "DELETE":
                try await engine.deleteDevice(id)
                return Self.empty(204)
            default: throw call.methodNotAllowed
            }
        case 3 where ["start", "stop", "undelete"].contains(s[2]):
            guard call.method == "POST" else { throw call.methodNotAllowed }
            let id = String(s[1])
            switch s[2] {
            case "start": try await engine.startDevice(id)
            case "stop": try await engine.stopDevice(id)
            default: try await engine.undeleteDevice(id)
            }
            return Self.empty(204)
        case 4 where s[2] == "history":
            guard call.method == "GET" else { throw call.methodNotAllowed }
            return Self.json(try await engine.deviceHistory(String(s[1]), day: String(s[3])), status: 200)
        default:
            throw call.routeNotFound
        }
    }
}
