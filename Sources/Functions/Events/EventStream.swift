import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// One server-sent-event response: subscribes to the process's hub, writes what the client missed since its
/// `Last-Event-ID` (read from the log), then every event the hub pushes, heartbeats while idle, and a final
/// `stream.closed` when the server ends it (maximum duration, slow client, shutdown).
struct EventStream: Sendable {
    let hub: OrderEventHub
    let scope: OrderEventScope
    /// The client's last event id: `Last-Event-ID`, or `last_event_id` for a browser's first connect.
    let resumeAfter: Int64?
    let maximumDuration: Duration
    /// Written first (the share page's snapshot).
    var prelude: String?
    let logger: Logger

    /// The position a request resumes after: `Last-Event-ID` (what `EventSource` sends when it reconnects) or
    /// the `last_event_id` query parameter (a first connect can set no header). `nil`: live events only.
    static func resumePosition(_ request: Request) throws -> Int64? {
        if let header = request.headers[HTTPField.Name("Last-Event-ID")!], !header.isEmpty {
            guard let position = Int64(header.trimmingCharacters(in: .whitespaces)), position >= 0 else {
                throw APIProblem.validation("Last-Event-ID", "must be an event id (a non-negative integer)")
            }
            return position
        }
        guard let text = request.uri.queryParameters["last_event_id"] else { return nil }
        guard let position = Int64(text), position >= 0 else {
            throw APIProblem.validation("last_event_id", "must be an event id (a non-negative integer)")
        }
        return position
    }

    /// The `timeout` query parameter: seconds before the server ends the stream (1 to `maximum`, default
    /// `maximum`). Clients reconnect with `Last-Event-ID`, so a bound costs nothing and keeps tools that cannot
    /// read an endless response (fuzzers, scripts) from hanging.
    static func duration(_ request: Request, maximum: Duration) throws -> Duration {
        guard let text = request.uri.queryParameters["timeout"] else { return maximum }
        let limit = Int(maximum.components.seconds)
        guard let seconds = Int(text), (1...limit).contains(seconds) else {
            throw APIProblem.validation("timeout", "must be 1 to \(limit) seconds")
        }
        return .seconds(seconds)
    }

    func response() throws -> Response {
        guard let (subscription, from) = self.hub.subscribe(scope: self.scope, maximumDuration: self.maximumDuration)
        else {
            throw APIProblem(.serviceUnavailable, detail: "this process serves no event streams; try again")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let body = ResponseBody { writer in
            defer { self.hub.unsubscribe(subscription) }
            try await withGracefulShutdownHandler {
                try await self.write(to: &writer, subscription: subscription, from: from)
            } onGracefulShutdown: {
                subscription.close(.shutdown)
            }
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// Writes the stream: the opening lines, what the client missed (``replay(to:after:through:)``), then every
    /// event the hub pushes, heartbeats, and the final `stream.closed`. An idle stream waits in this frame, so the
    /// loop is here and not one call deeper: each level of async frames the connection's task reaches stays
    /// allocated as long as the stream is open (see `inChildTask`).
    private func write(
        to writer: inout any ResponseBodyWriter,
        subscription: EventSubscription,
        from: Int64
    ) async throws {
        // A retry hint and a first byte, so clients and proxies see the stream open at once.
        try await writer.write(ByteBuffer(string: "retry: 2000\n: connected\n\n"))
        if let prelude { try await writer.write(ByteBuffer(string: prelude)) }
        var last = from
        if let resume = self.resumeAfter {
            guard let end = try await self.replay(to: &writer, after: resume, through: from) else { return }
            last = end
        }
        while true {
            switch await subscription.next() {
            case .event(let event):
                guard event.position > last else { continue }
                last = event.position
                if self.revokes(event) { return try await self.close(&writer, .revoked) }
                if event.kind == .shareRevoked { continue }
                try await writer.write(ByteBuffer(string: self.render(event)))
            case .heartbeat:
                try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
            case .closed(let reason):
                return try await self.close(&writer, reason)
            }
        }
    }

    /// Writes what the client missed after `resume`, up to the hub's position when it subscribed; the position it
    /// wrote through, or `nil` when the stream ended (its link was revoked meanwhile). The log is read in child
    /// tasks (see `inChildTask`): this task stays suspended for the stream's life and would keep the query's frames.
    private func replay(
        to writer: inout any ResponseBodyWriter,
        after resume: Int64,
        through from: Int64
    ) async throws -> Int64? {
        let (log, scope) = (self.hub.log, self.scope)
        var last = resume
        let (_, prunedThrough) = try await inChildTask { try await log.ends() }
        if resume < prunedThrough {
            // Some events after the client's were deleted: it must refetch; what is left follows.
            try await writer.write(ByteBuffer(string: OrderEventRenderer.reset(prunedThrough: prunedThrough)))
            last = prunedThrough
        }
        while last < from {
            let after = last
            let missed = try await inChildTask { try await log.events(of: scope, after: after, through: from) }
            for event in missed where scope.includes(event) {
                if self.revokes(event) {
                    try await self.close(&writer, .revoked)
                    return nil
                }
                if event.kind == .shareRevoked { continue }
                try await writer.write(ByteBuffer(string: self.render(event)))
            }
            guard let end = missed.last?.position, missed.count == OrderEventLog.batch else { break }
            last = end
        }
        return max(last, from)
    }

    /// Writes the final `stream.closed` and ends the response.
    private func close(_ writer: inout any ResponseBodyWriter, _ reason: EventSubscription.CloseReason) async throws {
        try await writer.write(ByteBuffer(string: OrderEventRenderer.closed(reason)))
        try await writer.finish(nil)
    }

    /// Whether `event` revokes this share stream's link.
    private func revokes(_ event: OrderEvent) -> Bool {
        guard event.kind == .shareRevoked, case .share(_, let tokenHash) = self.scope else { return false }
        return event.payload.contains(tokenHash)
    }

    /// The event's frame, or a comment when its payload does not decode (logged; the stream goes on).
    private func render(_ event: OrderEvent) -> String {
        do {
            let share = self.scope.isShare
            return try event.frames.frame(share: share) { try OrderEventRenderer.render(event, share: share) }
        } catch {
            self.logger.error(
                "order event does not render",
                metadata: ["events.position": "\(event.position)", "error": "\(String(reflecting: error))"]
            )
            return ": event \(event.position) omitted\n\n"
        }
    }
}
