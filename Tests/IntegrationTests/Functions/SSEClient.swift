import AsyncHTTPClient
import Foundation
import HyperTrackAPI
import NIOCore
import NIOHTTP1
import Synchronization

/// A server-sent-event client over real HTTP (AsyncHTTPClient): it reads a stream in a task and parses its events,
/// which the test awaits one at a time with a deadline. ``disconnect()`` drops the connection as a phone in a tunnel
/// would.
final class SSEClient: Sendable {
    struct Event: Sendable, Equatable {
        var id: String?
        var name: String
        var data: String
        var json: JSONValue { (try? JSONDecoder().decode(JSONValue.self, from: Data(self.data.utf8))) ?? .null }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private struct State {
        var events: [Event] = []
        var ended: (any Error)?
        var finished = false
        var status: Int?
        var contentType: String?
        var comments = 0
    }

    private let state = Mutex(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Opens `url` with a bearer `token` and `Last-Event-ID` when given; returns once the response's head arrived.
    static func connect(
        _ url: String,
        token: String? = nil,
        lastEventID: String? = nil,
        timeout: Duration = .seconds(30)
    ) async throws -> SSEClient {
        let client = SSEClient()
        var request = HTTPClientRequest(url: url)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        request.headers.add(name: "Accept", value: "text/event-stream")
        let task = Task {
            do {
                let response = try await HTTPClient.shared.execute(request, timeout: .hours(1))
                client.head(
                    status: Int(response.status.code),
                    contentType: response.headers.first(name: "content-type")
                )
                var parser = Parser()
                for try await buffer in response.body {
                    for item in parser.feed(String(buffer: buffer)) { client.append(item) }
                }
                client.end(nil)
            } catch {
                client.end(error)
            }
        }
        client.task.withLock { $0 = task }
        try await client.waitFor("the response head", timeout: timeout) { $0.status != nil || $0.finished }
        return client
    }

    /// The response's status (once its head arrived).
    var status: Int? { self.state.withLock { $0.status } }
    /// The response's content type.
    var contentType: String? { self.state.withLock { $0.contentType } }
    /// Every event received so far.
    var events: [Event] { self.state.withLock { $0.events } }
    /// How many comment lines (heartbeats) arrived.
    var comments: Int { self.state.withLock { $0.comments } }
    /// Whether the server ended the response.
    var finished: Bool { self.state.withLock { $0.finished } }

    /// Waits until `count` events arrived (or the stream ended), at most `timeout`.
    @discardableResult
    func waitForEvents(_ count: Int, timeout: Duration = .seconds(60)) async throws -> [Event] {
        try await self.waitFor("\(count) events", timeout: timeout) { $0.events.count >= count }
        return self.events
    }

    /// Waits until an event satisfies `match`, at most `timeout`.
    @discardableResult
    func waitForEvent(
        _ what: String,
        timeout: Duration = .seconds(60),
        _ match: @escaping @Sendable (Event) -> Bool
    ) async throws -> Event {
        try await self.waitFor(what, timeout: timeout) { $0.events.contains(where: match) }
        guard let event = self.events.first(where: match) else { throw Failure(description: "no \(what)") }
        return event
    }

    /// Waits until the server ended the stream.
    func waitForEnd(timeout: Duration = .seconds(60)) async throws {
        try await self.waitFor("the end of the stream", timeout: timeout) { $0.finished }
    }

    /// Drops the connection.
    func disconnect() {
        self.task.withLock { $0?.cancel() }
    }

    private func waitFor(
        _ what: String,
        timeout: Duration,
        _ condition: @escaping @Sendable (State) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (done, failure) = self.state.withLock { state -> (Bool, (any Error)?) in
                if condition(state) { return (true, nil) }
                if state.finished { return (true, state.ended ?? Failure(description: "the stream ended")) }
                return (false, nil)
            }
            if let failure {
                throw Failure(description: "waiting for \(what): \(failure); got \(self.events.map(\.name))")
            }
            if done { return }
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "timed out waiting for \(what); got \(self.events.map(\.name))")
            }
            // Checked again every 10 ms until the deadline (the events arrive on the reading task).
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func head(status: Int, contentType: String?) {
        self.state.withLock {
            $0.status = status
            $0.contentType = contentType
        }
    }

    private func append(_ item: Parser.Item) {
        self.state.withLock { state in
            switch item {
            case .event(let event): state.events.append(event)
            case .comment: state.comments += 1
            }
        }
    }

    private func end(_ error: (any Error)?) {
        self.state.withLock {
            $0.finished = true
            $0.ended = error
        }
    }

    /// The `text/event-stream` format: fields per line, an empty line ends an event.
    struct Parser {
        enum Item {
            case event(Event)
            case comment
        }

        private var pending = ""
        private var id: String?
        private var name: String?
        private var data: [String] = []

        mutating func feed(_ text: String) -> [Item] {
            self.pending += text
            var items: [Item] = []
            while let newline = self.pending.firstIndex(of: "\n") {
                let line = String(self.pending[..<newline])
                self.pending = String(self.pending[self.pending.index(after: newline)...])
                if line.isEmpty {
                    if let name = self.name ?? (self.data.isEmpty ? nil : "message") {
                        items.append(.event(Event(id: self.id, name: name, data: self.data.joined(separator: "\n"))))
                    }
                    self.id = nil
                    self.name = nil
                    self.data = []
                } else if line.hasPrefix(":") {
                    items.append(.comment)
                } else {
                    let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                    let field = String(parts[0])
                    var value = parts.count > 1 ? String(parts[1]) : ""
                    if value.hasPrefix(" ") { value.removeFirst() }
                    switch field {
                    case "id": self.id = value
                    case "event": self.name = value
                    case "data": self.data.append(value)
                    default: break
                    }
                }
            }
            return items
        }
    }
}
