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
        guard let pgCtl = try? EmbeddedPostgres.locateBinaries() + "/pg_ctl" else { return }
        let directory = server.configuration.dataDirectory
        let stop = Shell.isRoot ? "runuser -u \(Shell.serverUser) -- \(pgCtl)" : pgCtl
        // Polls once a second for the parent's exit: this is cleanup after a crash, not a test waiting on an outcome.
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            \(stop) stop -D '\(directory)' -m immediate >/dev/null 2>&1
            rm -rf '\(directory)'
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["/bin/sh", "-c", script]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
