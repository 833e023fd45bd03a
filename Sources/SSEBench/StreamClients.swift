import BenchSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// What every stream saw, keyed by the change it showed (`order id|status`): the stream and the instant each
/// `order.status` event arrived, plus how streams ended. One lock; an event costs an append.
final class Receipts: Sendable {
    struct Arrival: Sendable {
        var stream: Int
        var at: ContinuousClock.Instant
    }

    private struct State {
        var arrivals: [String: [Arrival]] = [:]
        var closed: [String: Int] = [:]
        var failures: [String] = []
        var heartbeats = 0
    }

    private let state = Mutex(State())

    func arrived(_ key: String, stream: Int, at instant: ContinuousClock.Instant) {
        self.state.withLock { $0.arrivals[key, default: []].append(Arrival(stream: stream, at: instant)) }
    }

    func heartbeat() { self.state.withLock { $0.heartbeats += 1 } }

    func closed(_ reason: String) { self.state.withLock { $0.closed[reason, default: 0] += 1 } }

    func failed(_ why: String) { self.state.withLock { $0.failures.append(why) } }

    var arrivals: [String: [Arrival]] { self.state.withLock { $0.arrivals } }
    var closedReasons: [String: Int] { self.state.withLock { $0.closed } }
    var failures: [String] { self.state.withLock { $0.failures } }
    var heartbeats: Int { self.state.withLock { $0.heartbeats } }
}

/// One server-sent-event stream over a plain NIO channel (`GET path` with a bearer token): a client costs a socket
/// and a few kilobytes, so 10,000 fit in the benchmark's process. Frames are split on blank lines; `order.status`
/// events are recorded by order id and status, comments counted as heartbeats.
final class StreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let index: Int
    private let path: String
    private let token: String
    private let receipts: Receipts
    private let connected: EventLoopPromise<Void>
    private var pending = ""
    private var settled = false

    init(index: Int, path: String, token: String, receipts: Receipts, connected: EventLoopPromise<Void>) {
        self.index = index
        self.path = path
        self.token = token
        self.receipts = receipts
        self.connected = connected
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "host", value: "127.0.0.1")
        headers.add(name: "accept", value: "text/event-stream")
        headers.add(name: "authorization", value: "Bearer \(self.token)")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: self.path, headers: headers)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = ContinuousClock.now
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            if head.status != .ok {
                self.receipts.failed("stream \(self.index): \(head.status.code)")
                self.settle(BenchError("stream \(self.index) answered \(head.status.code)"))
                context.close(promise: nil)
            }
        case .body(let bytes):
            self.pending += String(buffer: bytes)
            while let end = self.pending.range(of: "\n\n") {
                let frame = self.pending[..<end.lowerBound]
                self.pending.removeSubrange(..<end.upperBound)
                self.handle(frame: frame, at: now)
            }
        case .end:
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.settle(BenchError("stream \(self.index) closed before it was open"))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.receipts.failed("stream \(self.index): \(error)")
        context.close(promise: nil)
    }

    /// Completes the open promise once: with success, or with why the stream never opened.
    private func settle(_ failure: (any Error)?) {
        guard !self.settled else { return }
        self.settled = true
        if let failure { self.connected.fail(failure) } else { self.connected.succeed() }
    }

    private func handle(frame: Substring, at instant: ContinuousClock.Instant) {
        var event: Substring?
        var data: Substring?
        for line in frame.split(separator: "\n") {
            if line.hasPrefix("event: ") {
                event = line.dropFirst(7)
            } else if line.hasPrefix("data: ") {
                data = line.dropFirst(6)
            } else if line == ": connected" {
                self.settle(nil)
            } else if line.hasPrefix(": heartbeat") {
                self.receipts.heartbeat()
            }
        }
        guard let event else { return }
        switch event {
        case "order.status":
            let object: Any?
            do {
                object = try data.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
            } catch {
                self.receipts.failed("stream \(self.index): an order.status event that is not JSON: \(error)")
                return
            }
            guard let order = (object as? [String: Any])?["order"] as? [String: Any],
                let id = order["id"] as? String, let status = order["status"] as? String
            else {
                self.receipts.failed("stream \(self.index): an order.status event without order id and status")
                return
            }
            self.receipts.arrived("\(id.lowercased())|\(status)", stream: self.index, at: instant)
        case "stream.closed":
            self.receipts.closed(data.map(String.init) ?? "")
        default:
            break
        }
    }
}

/// Opens streams in waves (the server's accept backlog is finite) and keeps their channels until closed.
struct StreamClients: Sendable {
    let group: MultiThreadedEventLoopGroup
    let port: Int
    let receipts: Receipts

    /// Opens one stream per `(index, token)` at `path`, `wave` at a time; returns their channels once every one
    /// has answered its first bytes.
    func open(_ streams: [(index: Int, token: String)], path: String, wave: Int = 200) async throws -> [any Channel] {
        var channels: [any Channel] = []
        channels.reserveCapacity(streams.count)
        for start in stride(from: 0, to: streams.count, by: wave) {
            var opened: [(any Channel, EventLoopFuture<Void>)] = []
            for (index, token) in streams[start..<min(start + wave, streams.count)] {
                let loop = self.group.next()
                let connected = loop.makePromise(of: Void.self)
                let receipts = self.receipts
                let channel = try await ClientBootstrap(group: loop)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(
                                StreamHandler(
                                    index: index,
                                    path: path,
                                    token: token,
                                    receipts: receipts,
                                    connected: connected
                                )
                            )
                        }
                    }
                    .connect(host: "127.0.0.1", port: self.port).get()
                opened.append((channel, connected.futureResult))
            }
            for (channel, connected) in opened {
                try await connected.get()
                channels.append(channel)
            }
        }
        return channels
    }
}
