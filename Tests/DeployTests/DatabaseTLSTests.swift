import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

@testable import Ridesharing

/// `sslmode` and `sslrootcert` in `DATABASE_URL` (and `DATABASE_SSL_MODE` / `DATABASE_SSL_ROOT_CERT`) against a
/// PostgreSQL that accepts TCP only over TLS: each connection goes through the settings, ``Configuration`` and
/// its `withClient`, the path every subcommand takes, and `pg_stat_ssl` shows whether the session is encrypted.
@Suite("Deploy: TLS to the database (sslmode, sslrootcert)", .timeLimit(.minutes(10)))
struct DatabaseTLSTests {
    /// What a client made from the settings got: a session (encrypted or not), or the pool's reason for failing.
    enum Outcome: Sendable, Equatable {
        case connected(encrypted: Bool)
        case failed(String)

        var failure: String? { if case .failed(let text) = self { text } else { nil } }
    }

    /// Connects with the settings `environment` and returns whether the session is encrypted, or the first
    /// connection failure the client logs (postgres-nio retries a failed connection forever, so the failure is
    /// taken from its log, where an operator sees it).
    static func connect(_ environment: [String: String]) async throws -> Outcome {
        let configuration = try Configuration(SettingsReader(environment: environment))
        let failures = ConnectionFailures()
        var logger = Logger(label: "database-tls-test", factory: { _ in failures })
        logger.logLevel = .info
        return try await configuration.withClient(logger: logger) { client in
            try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    let rows = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                    for try await ssl in rows.decode(Bool.self) { return .connected(encrypted: ssl) }
                    throw ChildProcess.Failure(description: "pg_stat_ssl has no row for this session")
                }
                group.addTask { .failed(await failures.first()) }
                group.addTask {
                    // The deadline, not a wait for the outcome: the two tasks above are the outcome.
                    try await Task.sleep(for: .seconds(60))
                    throw ChildProcess.Failure(description: "neither connected nor failed within 60 s")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        }
    }

    @Test("sslmode=disable is refused by a server that requires TLS; the server's reason is in the log")
    func disableIsRefused() async throws {
        let server = try await TLSPostgres.shared.value
        let outcome = try await Self.connect(["DATABASE_URL": server.url("sslmode=disable")])
        let failure = try #require(outcome.failure, "connected without TLS: \(outcome)")
        #expect(failure.contains("no encryption"), "\(failure)")
    }

    @Test("require connects encrypted without checking the certificate; so does the default (prefer)")
    func requireAndPrefer() async throws {
        let server = try await TLSPostgres.shared.value
        for query in ["sslmode=require", "", "sslmode=prefer", "sslmode=allow"] {
            let outcome = try await Self.connect(["DATABASE_URL": server.url(query)])
            #expect(outcome == .connected(encrypted: true), "\(query.isEmpty ? "no sslmode" : query): \(outcome)")
        }
        // The same through POSTGRES_* and DATABASE_SSL_MODE, the other way to name a database.
        let parts = try await Self.connect([
            "POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": "\(server.server.port)", "DATABASE_SSL_MODE": "require",
        ])
        #expect(parts == .connected(encrypted: true), "\(parts)")
    }

    @Test("verify-full with the server's CA migrates the database over TLS (the migrate command's own path)")
    func verifyFullMigrates() async throws {
        let server = try await TLSPostgres.shared.value
        let url = server.url(host: "localhost", "sslmode=verify-full&sslrootcert=\(server.caFile)")
        let (status, output) = try await CommandLineTests.run(["migrate"], environment: ["DATABASE_URL": url])
        #expect(status == 0, "\(output)")

        let settings = SettingsReader(environment: ["DATABASE_URL": url])
        let configuration = try Configuration(settings)
        let logger = Logger(label: "database-tls-test", factory: { _ in SwiftLogNoOpLogHandler() })
        let applied = try await configuration.withClient(logger: logger) { client in
            let rows = try await client.query(
                """
                SELECT (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()),
                       (SELECT count(*) FROM trigger_runtime.schema_migrations)
                """
            )
            for try await row in rows.decode((Bool, Int).self) { return row }
            return (false, 0)
        }
        #expect(applied.0, "the session is not encrypted")
        #expect(applied.1 > 0, "no migration recorded")
        // The migration report of a second run, in process: nothing pending.
        let pending = try await Migrate.migrate(
            configuration: configuration,
            settings: try BackendSettings(settings, requireHyperTrack: false),
            dryRun: true,
            logger: logger
        )
        #expect(pending.isEmpty)
    }

    @Test("verify-full with another CA fails, and the log says the certificate did not verify")
    func wrongCAFails() async throws {
        let server = try await TLSPostgres.shared.value
        for mode in ["verify-full", "verify-ca", "require"] {
            let outcome = try await Self.connect([
                "DATABASE_URL": server.url("sslmode=\(mode)"), "DATABASE_SSL_ROOT_CERT": server.otherCAFile,
            ])
            let failure = try #require(outcome.failure, "\(mode) connected with the wrong CA: \(outcome)")
            #expect(failure.contains("CERTIFICATE_VERIFY_FAILED"), "\(mode): \(failure)")
        }
    }

    @Test("verify-full refuses a host name the certificate does not carry; verify-ca accepts it")
    func hostName() async throws {
        let server = try await TLSPostgres.shared.value
        let query = "sslrootcert=\(server.caFile)"
        let full = try await Self.connect([
            "DATABASE_URL": server.url(host: "127.0.0.1", "sslmode=verify-full&\(query)")
        ])
        let failure = try #require(full.failure, "verify-full accepted 127.0.0.1: \(full)")
        #expect(failure.contains("failedToValidateHostname"), "\(failure)")
        let ca = try await Self.connect(["DATABASE_URL": server.url(host: "127.0.0.1", "sslmode=verify-ca&\(query)")])
        #expect(ca == .connected(encrypted: true), "\(ca)")
        let named = try await Self.connect([
            "DATABASE_URL": server.url(host: "localhost", "sslmode=verify-full&\(query)")
        ])
        #expect(named == .connected(encrypted: true), "\(named)")
    }

    @Test("an unknown sslmode, a missing CA file and verify without a CA stop the process at start, naming the setting")
    func startupErrors() async throws {
        let missing = "/nonexistent/ca-\(UUID().uuidString).pem"
        let cases: [([String: String], String)] = [
            (
                ["DATABASE_URL": "postgres://u@127.0.0.1:1/d?sslmode=required"],
                #"sslmode in the database URL must be one of disable, allow, prefer, require, verify-ca, verify-full, got "required""#
            ),
            (
                ["DATABASE_URL": "postgres://u@127.0.0.1:1/d", "DATABASE_SSL_MODE": "on"],
                #"DATABASE_SSL_MODE must be one of disable, allow, prefer, require, verify-ca, verify-full, got "on""#
            ),
            (
                ["DATABASE_URL": "postgres://u@127.0.0.1:1/d?sslmode=verify-full&sslrootcert=\(missing)"],
                "sslrootcert in the database URL \(missing) cannot be read"
            ),
            (
                ["POSTGRES_HOST": "127.0.0.1", "DATABASE_SSL_ROOT_CERT": missing],
                "DATABASE_SSL_ROOT_CERT \(missing) cannot be read"
            ),
            (
                ["DATABASE_URL": "postgres://u@127.0.0.1:1/d?sslmode=verify-ca"],
                "sslmode in the database URL is verify-ca, which verifies the server's certificate, but no CA is given: "
                    + "set DATABASE_SSL_ROOT_CERT"
            ),
            (
                ["DATABASE_URL": "postgres://u@127.0.0.1:1/d?sslmod=require"],
                #"DATABASE_URL: the database URL's parameter "sslmod" is not supported (supported: sslmode, sslrootcert)"#
            ),
        ]
        for (environment, message) in cases {
            let error = #expect(throws: Configuration.Invalid.self) {
                _ = try Configuration(SettingsReader(environment: environment))
            }
            #expect(error?.description.contains(message) == true, "\(environment): \(String(describing: error))")
        }
        // The binary says the same and exits non-zero before connecting anywhere.
        let (status, output) = try await CommandLineTests.run(
            ["migrate"],
            environment: ["DATABASE_URL": "postgres://u@127.0.0.1:1/d?sslmode=verify-full&sslrootcert=\(missing)"]
        )
        #expect(status != 0)
        #expect(output.contains("sslrootcert in the database URL \(missing) cannot be read"), "\(output)")
    }
}

/// A log handler that hands over the first "Connection creation failed" record of a PostgresClient (its message
/// and metadata as one text).
final class ConnectionFailures: LogHandler, Sendable {
    private struct State {
        var first: String?
        var cancelled = false
        var waiters: [CheckedContinuation<String, Never>] = []
    }
    private let state = Mutex(State())

    var logLevel: Logger.Level {
        get { .info }
        set {}
    }
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        guard event.message.description.contains("Connection creation failed") else { return }
        self.finish("\(event.message) \(event.metadata ?? [:])")
    }

    /// The first failure, past or future; an empty text once the waiting task is cancelled.
    func first() async -> String {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let text = self.state.withLock { state -> String? in
                    if state.first == nil && !state.cancelled { state.waiters.append(continuation) }
                    return state.cancelled ? "" : state.first
                }
                if let text { continuation.resume(returning: text) }
            }
        } onCancel: {
            self.state.withLock { $0.cancelled = true }
            self.finish("")
        }
    }

    private func finish(_ text: String) {
        let waiters = self.state.withLock { state in
            if state.first == nil && !text.isEmpty { state.first = text }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: text) }
    }
}
