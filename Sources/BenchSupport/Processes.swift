import EmbeddedPostgres
import Foundation

/// A free TCP port on 127.0.0.1 (bound to port 0, read back, closed).
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw BenchError("bind() to a free port failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A product of this build, next to the benchmark's own executable.
public func productURL(_ name: String) throws -> URL {
    let url = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: url.path) else {
        throw BenchError("\(url.path) is missing: build every product first (`swift build -c release`)")
    }
    return url
}

/// Runs a command of this build to its end; throws unless it exits 0.
public func runToCompletion(_ executable: String, _ arguments: [String], environment: [String: String]) async throws {
    let pid = try Spawn.start(
        [try productURL(executable).path] + arguments,
        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
        output: .inherited
    )
    let exit = ProcessExit(waitingFor: pid)
    let status = try await exit.status(timeout: .seconds(300), "\(executable) \(arguments.joined(separator: " "))")
    guard status == 0 else {
        throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited with \(status)")
    }
}

/// Writes a line to standard output at once (`print` is block-buffered into a file or a pipe, so progress lines
/// would show only at the end).
public func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
