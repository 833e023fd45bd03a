import Foundation
import Synchronization

/// Stops throwaway servers when the process that started them ends.
///
/// A normal exit runs an `atexit` handler; for a crash or SIGKILL a small watchdog process waits for this process
/// to disappear and then stops the server and deletes its folder.
enum ProcessCleanup {
    private static let servers = Mutex<[EmbeddedPostgres]>([])

    static func register(_ server: EmbeddedPostgres) {
        let isFirst = self.servers.withLock { servers in
            servers.append(server)
            return servers.count == 1
        }
        if isFirst {
            atexit {
                let servers = ProcessCleanup.servers.withLock { servers in
                    defer { servers.removeAll() }
                    return servers
                }
                for server in servers {
                    server.stop(immediate: true)
                    try? FileManager.default.removeItem(atPath: server.configuration.dataDirectory)
                }
            }
        }
        self.startWatchdog(for: server)
    }

    private static func startWatchdog(for server: EmbeddedPostgres) {
        let pgCtl: String
        do {
            pgCtl = try EmbeddedPostgres.locateBinaries() + "/pg_ctl"
        } catch {
            FileHandle.standardError.write(Data("embedded-postgres: no cleanup watchdog: \(error)\n".utf8))
            return
        }
        let directory = server.configuration.dataDirectory
        let stop = Shell.isRoot ? "runuser -u \(Shell.serverUser) -- \(pgCtl)" : pgCtl
        // Polls once a second for the parent's exit: this is cleanup after a crash, not a test waiting on an outcome.
        let script = """
            exec </dev/null >/dev/null 2>&1
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            \(stop) stop -D '\(directory)' -m immediate >/dev/null 2>&1
            rm -rf '\(directory)'
            """
        // `setsid -f` forks the watchdog into its own session and returns at once. Not Foundation's `Process`: it
        // detects a child's exit through a socket the child inherits, which the forked watchdog would keep open, so
        // the exit would never be seen and the child would linger as a zombie.
        do {
            try Shell.run("/usr/bin/setsid", ["-f", "/bin/sh", "-c", script], asServerUser: false)
        } catch {
            FileHandle.standardError.write(Data("embedded-postgres: could not start the cleanup watchdog: \(error)\n".utf8))
        }
    }
}
