import Foundation
import Logging
import PostgresNIO

/// A PostgreSQL server this process runs itself: `initdb` into a folder, `pg_ctl start` on a loopback port.
///
/// Used by the test support (one throwaway server per test process), the benchmark and the local stack (a
/// persistent data folder). When this process is root the server runs as the `postgres` user, since PostgreSQL
/// refuses to run as root.
///
/// ```swift
/// let server = EmbeddedPostgres(configuration: .init(dataDirectory: "/tmp/pg"), logger: logger)
/// try server.start()
/// defer { server.stop() }
/// let config = server.clientConfiguration(database: "postgres")
/// ```
public struct EmbeddedPostgres: Sendable {
    /// Where and how the server runs.
    public struct Configuration: Sendable {
        /// The data folder; created with `initdb` when it holds no cluster yet.
        public var dataDirectory: String
        /// The TCP port on 127.0.0.1; `nil` picks a free one at start.
        public var port: Int?
        /// Extra `postgresql.conf` settings passed with `-c` at start (e.g. `fsync=off` for throwaway servers).
        public var settings: [String: String]
        /// The database superuser created by `initdb` (trust authentication on loopback only).
        public var superuser: String
        /// Serve TLS with this certificate and key and accept TCP connections over TLS only; `nil`: no TLS.
        public var tls: TLSFiles?

        /// A server certificate and its key (PEM files), copied into the data folder at start.
        public struct TLSFiles: Sendable, Hashable {
            /// The server's certificate (with its chain).
            public var certificate: String
            /// The certificate's private key, unencrypted.
            public var key: String

            /// Creates the pair.
            public init(certificate: String, key: String) {
                self.certificate = certificate
                self.key = key
            }
        }

        /// Settings for a throwaway server: durability off, more connections.
        public static let throwawaySettings: [String: String] = [
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
            "max_connections": "1000",
            // The city simulation splits an offer's time at its transactions' commits (`pg_xact_commit_timestamp`),
            // and its test holds that split: a few bytes per commit.
            "track_commit_timestamp": "on",
        ]

        /// Creates a configuration.
        /// - Parameters:
        ///   - dataDirectory: The data folder.
        ///   - port: The port, or `nil` for a free one.
        ///   - settings: Extra server settings.
        ///   - superuser: The superuser name.
        ///   - tls: The server's certificate and key, for a server that accepts only TLS over TCP.
        public init(
            dataDirectory: String,
            port: Int? = nil,
            settings: [String: String] = [:],
            superuser: String = "postgres",
            tls: TLSFiles? = nil
        ) {
            self.dataDirectory = dataDirectory
            self.port = port
            self.settings = settings
            self.superuser = superuser
            self.tls = tls
        }
    }

    /// The configuration.
    public let configuration: Configuration
    /// The port the server listens on (fixed at init: the configured one or a free one).
    public let port: Int
    private let binDirectory: String
    private let logger: Logger

    /// Prepares a server; nothing runs until `start()`.
    /// - Parameters:
    ///   - configuration: Where and how it runs.
    ///   - logger: Receives what the server does.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.binDirectory = try Self.locateBinaries()
        self.port = try configuration.port ?? Shell.freePort()
        self.logger = logger
    }

    /// The folder holding `initdb` and `pg_ctl`: `$PG_BIN`, then `PATH`, then Debian's `/usr/lib/postgresql/*/bin`.
    public static func locateBinaries() throws -> String {
        let fileManager = FileManager.default
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["PG_BIN"] { candidates.append(explicit) }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        if let versions = try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql") {
            candidates += versions.sorted(by: >).map { "/usr/lib/postgresql/\($0)/bin" }
        }
        for directory in candidates
        where fileManager.isExecutableFile(atPath: "\(directory)/initdb")
            && fileManager.isExecutableFile(atPath: "\(directory)/pg_ctl")
        {
            return directory
        }
        throw EmbeddedPostgresError(
            .binariesNotFound,
            "initdb and pg_ctl were not found on PATH, in $PG_BIN or under /usr/lib/postgresql. Install the server "
                + "(Debian: apt-get install postgresql postgresql-contrib) or set POSTGRES_URL to use an existing one."
        )
    }

    /// Whether the data folder already holds a cluster.
    public var isInitialized: Bool {
        FileManager.default.fileExists(atPath: "\(self.configuration.dataDirectory)/PG_VERSION")
    }

    /// Creates the cluster if the data folder holds none, then starts the server and waits until it accepts
    /// connections.
    public func start() throws {
        let directory = self.configuration.dataDirectory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Shell.handOver(directory)
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        if !self.isInitialized {
            self.logger.info("initdb", metadata: ["postgres.data": "\(directory)"])
            try Shell.run(
                "\(self.binDirectory)/initdb",
                ["-D", directory, "-U", self.configuration.superuser, "--auth=trust", "-E", "UTF8", "--no-sync"]
            )
        }
        var options = ["-p \(self.port)", "-k \(directory)", "-c listen_addresses=127.0.0.1"]
        if let tls = self.configuration.tls { options += try self.installTLS(tls) }
        for (key, value) in self.configuration.settings.sorted(by: { $0.key < $1.key }) {
            options.append("-c \(key)=\(value)")
        }
        self.logger.info("starting PostgreSQL", metadata: ["postgres.port": "\(self.port)"])
        // pg_ctl only says "could not start server; examine the log output": the reason is in the server's log,
        // which `-l` appends to across starts, so only what this start wrote is read back into the error.
        let log = "\(directory)/server.log"
        let logStart = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        do {
            try Shell.run(
                "\(self.binDirectory)/pg_ctl",
                ["start", "-w", "-t", "60", "-D", directory, "-l", log, "-o", options.joined(separator: " ")]
            )
        } catch let error as EmbeddedPostgresError {
            let written = Self.tail(of: log, from: logStart)
            throw EmbeddedPostgresError(
                written.contains("could not bind") ? .portInUse : error.code,
                "\(error.message)\nserver.log:\n\(written)"
            )
        }
    }

    /// What `path` holds from byte `offset` on (at most its last 4 KiB); empty when it cannot be read.
    private static func tail(of path: String, from offset: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let end = (try? handle.seekToEnd()) ?? 0
        let start = max(UInt64(max(offset, 0)), end > 4096 ? end - 4096 : 0)
        guard start <= end, (try? handle.seek(toOffset: start)) != nil,
            let data = try? handle.readToEnd()
        else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Copies the certificate and key into the data folder (the key readable by the server's user only, as
    /// PostgreSQL demands) and writes a `pg_hba` that accepts TCP only over TLS, so a plain connection is refused
    /// the way a managed PostgreSQL that requires TLS refuses it. Returns the server options that use them; the
    /// cluster's own `pg_hba.conf` is left as it is.
    private func installTLS(_ tls: Configuration.TLSFiles) throws -> [String] {
        let directory = self.configuration.dataDirectory
        let fileManager = FileManager.default
        for (source, name) in [(tls.certificate, "server.crt"), (tls.key, "server.key")] {
            let target = "\(directory)/\(name)"
            try? fileManager.removeItem(atPath: target)
            try fileManager.copyItem(atPath: source, toPath: target)
            try fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
        }
        let hba = "\(directory)/pg_hba_tls_only.conf"
        try """
            local all all trust
            hostssl all all 127.0.0.1/32 trust
            hostssl all all ::1/128 trust
            """.write(toFile: hba, atomically: true, encoding: .utf8)
        try Shell.handOver(directory)
        return ["-c ssl=on", "-c ssl_cert_file=server.crt", "-c ssl_key_file=server.key", "-c hba_file=\(hba)"]
    }

    /// Stops the server (fast shutdown: open sessions are ended). Errors are logged, not thrown: stopping a
    /// server that is not running is not a failure.
    public func stop(immediate: Bool = false) {
        do {
            try Shell.run(
                "\(self.binDirectory)/pg_ctl",
                ["stop", "-w", "-D", self.configuration.dataDirectory, "-m", immediate ? "immediate" : "fast"]
            )
        } catch {
            self.logger.debug("pg_ctl stop", metadata: ["error": "\(error)"])
        }
    }

    /// A client configuration for `database` on this server (no TLS, trust auth on loopback; a server started with
    /// ``Configuration/tls`` refuses it: build one from ``url(database:)`` with an `sslmode` instead).
    public func clientConfiguration(database: String) -> PostgresClient.Configuration {
        PostgresClient.Configuration(
            host: "127.0.0.1",
            port: self.port,
            username: self.configuration.superuser,
            password: nil,
            database: database,
            tls: .disable
        )
    }

    /// The same for a single `PostgresConnection`.
    public func connectionConfiguration(database: String) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: "127.0.0.1",
            port: self.port,
            username: self.configuration.superuser,
            password: nil,
            database: database,
            tls: .disable
        )
    }

    /// The `postgres://` URL of `database` on this server.
    public func url(database: String) -> String {
        "postgres://\(self.configuration.superuser)@127.0.0.1:\(self.port)/\(database)"
    }
}

extension EmbeddedPostgres {
    /// Starts a server and returns it running. A port chosen here is one that was free a moment ago: another socket
    /// can take it before the server binds it (seen while a simulation held 13,000 client connections, and in a CI
    /// run of the whole suite: outgoing connections draw their ephemeral ports from the same range). A server that
    /// could not bind such a port is started again on another one, in the same folder, up to three times. A port the
    /// configuration names is kept: failing to bind it is ``EmbeddedPostgresError/Code/portInUse``.
    /// - Parameters:
    ///   - configuration: Where and how it runs.
    ///   - preferredPort: Tried first when ``Configuration/port`` is `nil` and it is free (the local stack's port of
    ///     its last start); if another socket takes it first, a free one instead.
    ///   - logger: Receives what the server does.
    public static func started(
        configuration: Configuration, preferredPort: Int? = nil, logger: Logger
    ) throws -> EmbeddedPostgres {
        try Self.started(
            configuration: configuration,
            preferredPort: preferredPort,
            choosingPortsWith: Shell.freePort,
            logger: logger
        )
    }

    /// ``started(configuration:preferredPort:logger:)`` with the free ports drawn from `freePort` (tests hand it a
    /// port they hold, to be the one another socket took).
    static func started(
        configuration: Configuration, preferredPort: Int?, choosingPortsWith freePort: () throws -> Int, logger: Logger
    ) throws -> EmbeddedPostgres {
        var attempt = configuration
        if let port = configuration.port {
            attempt.port = port
        } else if let preferredPort, Shell.isFree(preferredPort) {
            attempt.port = preferredPort
        } else {
            attempt.port = try freePort()
        }
        for remaining in (0..<3).reversed() {
            let server = try EmbeddedPostgres(configuration: attempt, logger: logger)
            do {
                try server.start()
                return server
            } catch let error as EmbeddedPostgresError
                where error.code == .portInUse && configuration.port == nil && remaining > 0
            {
                logger.notice(
                    "PostgreSQL's port was taken before it bound it; starting it on another",
                    metadata: ["postgres.port": "\(server.port)"]
                )
                attempt.port = try freePort()
            }
        }
        preconditionFailure("the last attempt returns or throws")
    }

    /// Starts a server in a new temporary folder with ``Configuration/throwawaySettings`` (on a free port, chosen
    /// again when taken, as ``started(configuration:preferredPort:logger:)`` does); it is stopped and its folder
    /// deleted when this process exits (even by a crash).
    /// - Parameters:
    ///   - name: The folder's prefix.
    ///   - tls: The server's certificate and key, for a server that accepts only TLS over TCP.
    ///   - logger: Receives what the server does.
    public static func startThrowaway(
        name: String, tls: Configuration.TLSFiles? = nil, logger: Logger
    ) throws -> EmbeddedPostgres {
        let directory = NSTemporaryDirectory() + "\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let server = try Self.started(
            configuration: .init(dataDirectory: directory, settings: Configuration.throwawaySettings, tls: tls),
            logger: logger
        )
        ProcessCleanup.register(server)
        return server
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (what the server is started on when no port is given);
    /// tests use it for a port nothing listens on.
    public static func freeLoopbackPort() throws -> Int {
        try Shell.freePort()
    }
}
