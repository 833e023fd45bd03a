import Foundation
import Logging
import Testing

@testable import EmbeddedPostgres

/// The embedded server's port: one chosen free can be taken by another socket before PostgreSQL binds it (a CI run
/// of the whole suite lost `ridesharing local`'s first start so); such a start is made again on another port. A port
/// the configuration names is kept, and failing to bind it says so.
@Suite("Embedded PostgreSQL: a port taken before the server binds it", .timeLimit(.minutes(10)))
struct EmbeddedPostgresPortTests {
    static let settings = EmbeddedPostgres.Configuration.throwawaySettings
    static let logger = Logger(label: "embedded-postgres-port", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("a chosen port another socket holds: started again on the next free port, in the same folder")
    func retriesOnAnotherPort() throws {
        try Self.withHeldPort { held in
            try Self.withDataDirectory { directory in
                var chosen: [Int] = []
                let server = try EmbeddedPostgres.started(
                    configuration: .init(dataDirectory: directory, settings: Self.settings),
                    preferredPort: nil,
                    choosingPortsWith: {
                        let port = chosen.isEmpty ? held : try EmbeddedPostgres.freeLoopbackPort()
                        chosen.append(port)
                        return port
                    },
                    logger: Self.logger
                )
                defer { server.stop(immediate: true) }
                #expect(chosen.count == 2 && chosen.first == held)
                #expect(server.port == chosen.last && server.port != held)
                #expect(!Self.isFree(server.port), "the server listens on \(server.port)")
            }
        }
    }

    @Test("a port the configuration names is kept: another socket holding it is port_in_use, with the server's reason")
    func namedPortIsKept() throws {
        try Self.withHeldPort { held in
            try Self.withDataDirectory { directory in
                let error = #expect(throws: EmbeddedPostgresError.self) {
                    let server = try EmbeddedPostgres.started(
                        configuration: .init(dataDirectory: directory, port: held), logger: Self.logger
                    )
                    server.stop(immediate: true)
                }
                #expect(error?.code == .portInUse)
                #expect(error?.message.contains("could not bind") == true, "\(String(describing: error))")
            }
        }
    }

    @Test("a preferred port another socket holds is passed over for a free one")
    func preferredPortTakenIsPassedOver() throws {
        try Self.withHeldPort { held in
            try Self.withDataDirectory { directory in
                let server = try EmbeddedPostgres.started(
                    configuration: .init(dataDirectory: directory, settings: Self.settings),
                    preferredPort: held,
                    logger: Self.logger
                )
                defer { server.stop(immediate: true) }
                #expect(server.port != held)
            }
        }
    }

    /// Runs `body` with a port on 127.0.0.1 that a listening socket of this process holds.
    static func withHeldPort(_ body: (Int) throws -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        try #require(bound == 0 && listen(fd, 1) == 0)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        try #require(named == 0)
        try body(Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether nothing listens on `port` of 127.0.0.1 (a connection is refused).
    static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected != 0
    }

    static func withDataDirectory(_ body: (String) throws -> Void) throws {
        let directory = NSTemporaryDirectory() + "embedded-port-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try body(directory)
    }
}
