import EmbeddedPostgres
import Foundation
import Logging
import PostgresNIO

/// Where `local`, `demo` and `functions call` keep things, and how they get a database.
enum LocalData {
    /// `<data>/pg`: the embedded PostgreSQL's data directory.
    static func postgresDirectory(_ data: String) -> String { Self.absolute(data) + "/pg" }
    /// `<data>/emulator`: the emulator's exported state.
    static func emulatorDirectory(_ data: String) -> String { Self.absolute(data) + "/emulator" }
    /// `<data>/stack.json`: the running stack's endpoints (removed when it stops).
    static func endpointsFile(_ data: String) -> String { Self.absolute(data) + "/stack.json" }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL.path
    }

    /// Runs `body` with a database: `url` when given (with `tls` where the URL names no `sslmode` or
    /// `sslrootcert`), else an embedded server in `directory` (created on first use, stopped afterwards). Passes
    /// the client configuration and the URL.
    static func withDatabase<T>(
        url: String?,
        tls: DatabaseTLS = DatabaseTLS(),
        embeddedIn directory: String,
        maximumConnections: Int,
        logger: Logger,
        _ body: (PostgresClient.Configuration, String) async throws -> T
    ) async throws -> T {
        if let url {
            var configuration = try DatabaseURL.clientConfiguration(url, defaults: tls)
            configuration.options.maximumConnections = maximumConnections
            return try await body(configuration, url)
        }
        try FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: directory).deletingLastPathComponent().path, withIntermediateDirectories: true
        )
        // The port of the last start, kept beside the data directory, so that a URL saved from the banner or
        // stack.json stays valid across restarts (a new free port each start made it stale); a new one when that
        // port is taken now. Not writing the file only costs that: the next start picks a new port.
        let portFile = directory + ".port"
        let savedPort = (try? String(contentsOfFile: portFile, encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let server = try EmbeddedPostgres.started(
            configuration: .init(dataDirectory: directory),
            preferredPort: savedPort,
            logger: logger
        )
        do {
            try "\(server.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
        } catch {
            // Only the next start's port is at stake: it will pick a free one (and a saved URL goes stale).
            logger.warning("could not remember the database's port", metadata: ["file": "\(portFile)", "error": "\(error)"])
        }
        defer { server.stop() }
        var configuration = server.clientConfiguration(database: "postgres")
        configuration.options.maximumConnections = maximumConnections
        return try await body(configuration, server.url(database: "postgres"))
    }
}

/// Unbuffered lines on standard output (so a piped `local` or `demo` shows each line as it happens).
enum Terminal {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
