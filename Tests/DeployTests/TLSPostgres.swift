import EmbeddedPostgres
import Foundation
import Logging

/// A PostgreSQL that, like a managed one, accepts TCP connections only over TLS, with a certificate signed by a CA
/// made for this test process (and a second CA that signed nothing, to be wrong with).
///
/// The server certificate names only `DNS:localhost`, so `127.0.0.1` reaches the server under a name the
/// certificate does not carry. (Not the other way round: NIOSSL accepts a certificate whose IP address entry is the
/// address it connected to, whatever host name it was given.) The certificates are made with the `openssl` command (`.ci/run` installs it); one
/// server serves the whole process.
struct TLSPostgres: Sendable {
    let server: EmbeddedPostgres
    /// The CA that signed the server's certificate (PEM).
    let caFile: String
    /// A CA that signed nothing the server has (PEM).
    let otherCAFile: String

    /// The process's server, started on first use.
    static let shared = Task { try await Self.start() }

    /// `postgres://postgres@HOST:PORT/postgres?QUERY`.
    func url(host: String = "127.0.0.1", _ query: String) -> String {
        "postgres://postgres@\(host):\(self.server.port)/postgres" + (query.isEmpty ? "" : "?\(query)")
    }

    private static func start() async throws -> TLSPostgres {
        let directory = NSTemporaryDirectory() + "ridesharing-tls-certs-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for name in ["ca", "other-ca"] {
            try await Self.openssl(
                ["req", "-x509"] + ecKey + [
                    "-keyout", "\(name).key", "-out", "\(name).crt", "-days", "2", "-subj",
                    "/CN=ridesharing test \(name)",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ],
                in: directory
            )
        }
        try await Self.openssl(
            ["req"] + ecKey + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=ridesharing test server"],
            in: directory
        )
        try """
        subjectAltName = DNS:localhost
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature, keyEncipherment
        extendedKeyUsage = serverAuth
        """.write(toFile: "\(directory)/server.ext", atomically: true, encoding: .utf8)
        try await Self.openssl(
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.crt", "-days", "2", "-extfile", "server.ext",
            ],
            in: directory
        )
        let server = try EmbeddedPostgres.startThrowaway(
            name: "ridesharing-tls-pg",
            tls: .init(certificate: "\(directory)/server.crt", key: "\(directory)/server.key"),
            logger: Logger(label: "tls-postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        return TLSPostgres(server: server, caFile: "\(directory)/ca.crt", otherCAFile: "\(directory)/other-ca.crt")
    }

    /// Runs `openssl arguments…` in `directory`; fails with a message that says how to install it when missing.
    private static func openssl(_ arguments: [String], in directory: String) async throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/openssl" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            throw ChildProcess.Failure(
                description: "openssl not found on PATH: the database TLS tests make their CA and server "
                    + "certificate with it. Install it (Debian: apt-get install openssl); .ci/run does."
            )
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        let exit = ProcessExit(observing: process)
        try process.run()
        let status = try await exit.status(timeout: .seconds(60), "openssl \(arguments.first ?? "")")
        try handle.close()
        guard status == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw ChildProcess.Failure(
                description: "openssl \(arguments.joined(separator: " ")) failed (\(status)): \(text)"
            )
        }
    }
}
