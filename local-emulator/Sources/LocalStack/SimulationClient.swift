import Foundation
import HyperTrackAPI
import NIOHTTP1

/// The simulation's client of the API: ``StackAPI`` with every request timed into the recorder under its route, and
/// 5xx replies and transport failures counted as errors.
struct SimulationClient: Sendable {
    let api: StackAPI
    let recorder: SimulationRecorder
    /// Where sign-in codes are read (see ``CitySimulation/Configuration/codes``).
    var codes: SignInFlow.Codes? = nil

    @discardableResult
    func send(
        _ method: HTTPMethod,
        _ path: String,
        route: String? = nil,
        json: JSONValue? = nil,
        token: String? = nil
    ) async throws -> StackAPI.Reply {
        let name = "\(method) \(route ?? Self.route(path))"
        let started = ContinuousClock.now
        do {
            let reply = try await self.recorder.activity.during("a request \(name)") {
                try await self.api.send(method, path, json: json, token: token)
            }
            self.recorder.request(name, milliseconds: Self.milliseconds(ContinuousClock.now - started))
            if reply.status >= 500 { self.recorder.error("\(name): \(reply.status) \(reply.json)") }
            return reply
        } catch {
            // A request cut short because the simulation is over is no error of the stack's.
            if !(error is CancellationError) && !Task.isCancelled { self.recorder.error("\(name): \(error)") }
            throw error
        }
    }

    /// The route template of a path the simulation calls (ids and phones replaced by their parameter).
    static func route(_ path: String) -> String {
        let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        let segments = bare.split(separator: "/", omittingEmptySubsequences: false).enumerated().map { index, segment in
            if bare.hasPrefix("/local/auth/codes/") && index == 4 { return "{phone}" }
            if bare.hasPrefix("/v1/orders/") && index == 3 { return "{id}" }
            return String(segment)
        }
        return segments.joined(separator: "/")
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    /// The sign-in flow, its requests recorded too.
    var accounts: SignInFlow {
        SignInFlow(
            send: { method, path, json, token in
                let reply = try await self.send(method, path, json: json, token: token)
                return (reply.status, reply.json)
            },
            codes: self.codes
        )
    }
}
