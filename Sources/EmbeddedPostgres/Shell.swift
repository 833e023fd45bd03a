import Foundation

/// Runs external commands (initdb, pg_ctl), as the `postgres` user when this process is root.
enum Shell {
    /// Whether this process runs as root (PostgreSQL refuses to run as root).
    static var isRoot: Bool { geteuid() == 0 }

    /// The server's OS user when we are root.
    static let serverUser = "postgres"

    /// Runs `executable arguments…` and returns its combined output; throws `commandFailed` on a non-zero exit.
    ///
    /// Uses ``Spawn`` and `waitpid` with output to a temporary file: a server that `pg_ctl` leaves running must not
    /// keep a pipe of ours open, and Foundation's `Process` must not be waited on from the concurrency pool.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], asServerUser: Bool = true) throws -> String {
        let argv = asServerUser && isRoot ? ["/usr/sbin/runuser", "-u", serverUser, "--", executable] + arguments
            : [executable] + arguments
        let outputPath = NSTemporaryDirectory() + "embedded-postgres-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).out"
        defer { unlink(outputPath) }
        // Every other descriptor is closed in the child: a server started by `pg_ctl` lives on and would otherwise
        // keep this process's sockets (in-process HTTP servers, connections) open, so their peers never see them close.
        let pid = try Spawn.start(argv, output: .file(outputPath))
        let status = Spawn.wait(pid)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard Spawn.succeeded(status) else {
            throw EmbeddedPostgresError(
                .commandFailed,
                "\(executable) \(arguments.joined(separator: " ")) failed (status \(status)): \(output)"
            )
        }
        return output
    }

    /// Gives the server user ownership of `path` (when we are root) so the server can write there.
    static func handOver(_ path: String) throws {
        guard isRoot else { return }
        try run("/bin/chown", ["-R", "\(serverUser):\(serverUser)", path], asServerUser: false)
    }

    /// Whether `port` on 127.0.0.1 can be bound right now (nothing listens there).
    static func isFree(_ port: Int) -> Bool {
        guard (1...65535).contains(port) else { return false }
        return (try? self.bound(port: port)) == port
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago.
    static func freePort() throws -> Int {
        try self.bound(port: 0)
    }

    /// Binds a socket to `port` (0: any free one) on 127.0.0.1, closes it, and returns the port it had.
    private static func bound(port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw EmbeddedPostgresError(.commandFailed, "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw EmbeddedPostgresError(.commandFailed, "bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw EmbeddedPostgresError(.commandFailed, "getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
