import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `GET /v1/events` as a driver app holds it (and a rider's `GET /v1/orders/{id}/events`): one long-lived request per
/// phone, its body read as server-sent events. Its own HTTP client: every driver holds a connection for the whole run,
/// so the pool must allow one per stream (the shared client's few connections per host would queue the streams behind
/// each other).
struct EventStreamClient: Sendable {
    let baseURL: String
    let http: HTTPClient

    /// A client that holds up to `streams` connections to the API at once.
    ///
    /// A connection that cannot be made fails its request at once (`retryConnectionEstablishment` off): the driver
    /// waits its own jittered back-off and asks again (``CitySimulation/receive(_:token:events:into:closed:)``), as
    /// each phone does on its own. AsyncHTTPClient's retry is the pool's, with one count of failed attempts for all
    /// its connections (100 ms × 1.25 per failure, up to 60 s): when the API restarted, 10,000 streams' connects
    /// failed together, every connection slot then waited the longest back-off, and each stream's request waited its
    /// 30 s connect timeout in the pool (`getConnectionFromPoolTimeout`, 39,475 in the 36th session's chaos run) and
    /// was asked again into the same wait. The city stood nearly still for minutes after each API restart (33rd-36th
    /// sessions) although the API was back within seconds. Alternated (36th session, BENCHMARKS.md: CH4, CH5): with
    /// this the streams were all back 22 s after the API's restart and rides completed again ~80 s after
    /// PostgreSQL's crash; without it the city stood still for about five minutes.
    init(baseURL: String, streams: Int) {
        self.baseURL = baseURL
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: max(streams + 16, 64)
        )
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(30), read: nil)
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async throws { try await self.http.shutdown() }

    /// Opens the caller's stream (resuming after `lastEventID` when given) and calls `receive` with each event and
    /// the instant its bytes arrived, until the server ends the stream (it bounds every stream's life) or the task
    /// is cancelled. Throws when the API refuses the stream or the connection fails.
    func listen(
        path: String = "/v1/events",
        token: String,
        lastEventID: String?,
        _ receive: (ServerSentEvent, ContinuousClock.Instant) async throws -> Void
    ) async throws {
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        // The request's deadline covers the body too: a stream lives until the server closes it or the run ends.
        let response = try await self.http.execute(request, timeout: .hours(24))
        guard response.status == .ok else {
            let body = try? await response.body.collect(upTo: 1 << 16)
            throw LocalStackError.unexpectedReply(
                "GET \(path): \(response.status.code) \(body.map { String(buffer: $0) } ?? "")"
            )
        }
        var parser = ServerSentEvent.Parser()
        for try await chunk in response.body {
            let arrived = ContinuousClock.now
            for event in parser.feed(bytes: chunk.readableBytesView) { try await receive(event, arrived) }
        }
    }
}
