import Foundation
import HyperTrackAPI
import NIOCore
import NIOHTTP1

/// The emulator's control API (`/_emulator`) over HTTP, for tools that run beside a stack rather than inside it
/// (`ridesharing simulate`): place phones, move a manual clock, read the state.
struct EmulatorControl: Sendable {
    let http: StackAPI

    init(baseURL: String) { self.http = StackAPI(baseURL: baseURL) }

    /// Creates the phone `device` at `latitude, longitude`, tracking (it reports its position at once).
    func place(device: String, name: String, latitude: Double, longitude: Double) async throws {
        try await self.http.expect(
            201,
            .POST,
            "/_emulator/devices",
            json: [
                "device_id": .string(device), "name": .string(name),
                "position": [.number(longitude), .number(latitude)], "tracking": true,
            ]
        )
    }

    /// Moves a manual clock by `seconds`; returns once the webhooks due by then were attempted.
    func advance(seconds: Double) async throws {
        // A step waits for every webhook it makes to be answered: at a city's scale that can take minutes.
        let reply = try await self.http.send(
            .POST,
            "/_emulator/clock/advance",
            json: ["seconds": .number(seconds)],
            timeout: .seconds(600)
        )
        guard reply.status == 200 else {
            throw LocalStackError.unexpectedReply("POST /_emulator/clock/advance: \(reply.status) \(reply.json)")
        }
    }

    /// The emulated time now (`GET /_emulator/clock`).
    func now() async throws -> Date {
        let reply = try await self.http.expect(200, .GET, "/_emulator/clock")
        let text = reply["now"].stringValue ?? ""
        do {
            return try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
        } catch {
            throw LocalStackError.unexpectedReply("GET /_emulator/clock: no time in \(reply)")
        }
    }

    /// The webhook acknowledgement round trips the emulator timed (real milliseconds, send to reply: as its
    /// sending task saw them, and on the wire), from index `after` on, and how many it timed in all (so a later call
    /// can ask for only what came since).
    func roundTrips(after: Int = 0) async throws -> (total: Int, milliseconds: [Double], wireMilliseconds: [Double]) {
        let reply = try await self.http.expect(200, .GET, "/_emulator/webhooks/round-trips?after=\(after)")
        return (
            Int(reply["total"].doubleValue ?? 0),
            reply["milliseconds"].items.compactMap(\.doubleValue),
            reply["wire_milliseconds"].items.compactMap(\.doubleValue)
        )
    }

    /// How many webhook attempts had each outcome (`delivered`, `rejected`, `retry_scheduled`, `failed`,
    /// `dropped`), since the emulator started.
    func webhookOutcomes() async throws -> [String: Int] {
        let reply = try await self.http.expect(200, .GET, "/_emulator/webhooks/outcomes")
        var counts: [String: Int] = [:]
        for key in ["delivered", "rejected", "retry_scheduled", "failed", "dropped", "not_configured"] {
            if let value = reply[key].doubleValue { counts[key] = Int(value) }
        }
        return counts
    }

    /// How many events of `type` the emulator's delivered webhook attempts carried, since it started
    /// (`GET /_emulator/webhooks/events`).
    func deliveredEvents(type: String) async throws -> Int {
        let reply = try await self.http.expect(200, .GET, "/_emulator/webhooks/events")
        return Int(reply["delivered"][type].doubleValue ?? 0)
    }

    /// Every trip the emulator knows: `(id, device, status, order_id, leg)` (the last two from the trip's metadata),
    /// from `GET /_emulator/trips` (the whole state would be megabytes at a city's scale).
    func trips() async throws -> [(id: String, device: String, status: String, order: String?, leg: String?)] {
        let reply = try await self.http.expect(200, .GET, "/_emulator/trips")
        return reply["data"].items.map { trip in
            (
                trip["id"].stringValue ?? "", trip["device_id"].stringValue ?? "", trip["status"].stringValue ?? "",
                trip["order_id"].stringValue, trip["leg"].stringValue
            )
        }
    }
}
