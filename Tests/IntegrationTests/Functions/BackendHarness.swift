import AsyncHTTPClient
import EmbeddedPostgres
import Foundation
import Functions
import Hummingbird
import HyperTrackAPI
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import TriggerRuntime

/// A fresh database with the backend's schema and its API served on 127.0.0.1 (port 0).
struct BackendHarness: Sendable {
    let client: PostgresClient
    let api: APIClient
    let backend: Backend

    static let logger = Logger(label: "functions-integration", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` against a migrated database and a live API server, tearing both down afterwards.
    static func with<T: Sendable>(
        configuration: Backend.Configuration = Backend.Configuration(webhook: .init(secret: "whsec-test")),
        _ body: @escaping @Sendable (BackendHarness) async throws -> T
    ) async throws -> T {
        try await TestDatabase.shared.withDatabase(logger: self.logger) { client, _ in
            let backend = Backend(configuration: configuration)
            try await self.migrate(client, backend: backend)
            let (ports, portContinuation) = AsyncStream<Int>.makeStream()
            let app = Application(
                router: backend.makeRouter(client: client, logger: self.logger),
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in
                    portContinuation.yield(channel.localAddress?.port ?? 0)
                    portContinuation.finish()
                },
                logger: self.logger
            )
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await app.runService(gracefulShutdownSignals: []) }
                defer { group.cancelAll() }
                var iterator = ports.makeAsyncIterator()
                guard let port = await iterator.next(), port > 0 else { throw HarnessError.serverDidNotStart }
                let harness = BackendHarness(
                    client: client,
                    api: APIClient(baseURL: "http://127.0.0.1:\(port)"),
                    backend: backend
                )
                return try await body(harness)
            }
        }
    }

    /// Applies the backend's migrations (each in order, in one transaction).
    static func migrate(_ client: PostgresClient, backend: Backend) async throws {
        try await client.withTransaction(logger: self.logger) { connection in
            for migration in backend.migrations {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                }
            }
        }
    }

    enum HarnessError: Error {
        case serverDidNotStart
    }
}

/// A tiny JSON client for the API.
struct APIClient: Sendable {
    let baseURL: String

    struct Reply: Sendable {
        var status: Int
        var json: JSONValue
        var headers: [(String, String)]
    }

    func send(
        _ method: HTTPMethod,
        _ path: String,
        json: JSONValue? = nil,
        token: String? = nil,
        headers: [(String, String)] = [],
        rawBody: Data? = nil
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: self.baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body = try rawBody ?? json.map({ try JSONEncoder().encode($0) }) {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1024 * 1024)
        let data = Data(bytes.readableBytesView)
        let json = data.isEmpty ? JSONValue.null : try JSONDecoder().decode(JSONValue.self, from: data)
        return Reply(
            status: Int(response.status.code),
            json: json,
            headers: response.headers.map { ($0.name, $0.value) }
        )
    }

    /// Registers a rider; returns (id, token).
    func rider(_ name: String = "Ria") async throws -> (id: String, token: String) {
        let reply = try await self.send(.POST, "/v1/riders", json: ["name": .string(name), "phone": "+49 30 1234"])
        guard reply.status == 201, let id = reply.json["user"]["id"].stringValue,
            let token = reply.json["token"].stringValue
        else { throw APIClientError.unexpected(reply.status, reply.json) }
        return (id, token)
    }

    /// Registers a driver; returns (id, token).
    func driver(_ name: String = "Dana", device: String) async throws -> (id: String, token: String) {
        let reply = try await self.send(
            .POST,
            "/v1/drivers",
            json: [
                "name": .string(name), "phone": "+49 30 9876", "device_id": .string(device),
                "car": ["model": "Prius", "plate": "B-RS 42"],
            ]
        )
        guard reply.status == 201, let id = reply.json["user"]["id"].stringValue,
            let token = reply.json["token"].stringValue
        else { throw APIClientError.unexpected(reply.status, reply.json) }
        return (id, token)
    }

    enum APIClientError: Error {
        case unexpected(Int, JSONValue)
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue { self.objectValue?[key] ?? .null }
    subscript(index: Int) -> JSONValue {
        if case .array(let values) = self, values.indices.contains(index) { return values[index] }
        return .null
    }
    var arrayValue: [JSONValue] {
        if case .array(let values) = self { return values }
        return []
    }
}
