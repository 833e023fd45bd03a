import Foundation
import Functions
import FunctionsTesting
import PostgresNIO
import Testing
import TriggerRuntime

/// The READMEs name functions and API paths; a wrong one is worse than none (issue 18: `--function
/// dispatch_order` replayed nothing, the emulator's README gave a webhook path that does not exist). Every name is
/// checked against the registry, every `/v1` path against the router.
@Suite("Docs: the names and paths the READMEs give exist")
struct DocsTests {
    static let documents = [
        "README.md", "deploy/README.md", "local-emulator/README.md", "local-emulator/examples/README.md",
    ]

    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }

    static func matches(_ pattern: String, in text: String) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    @Test("every function a README passes to --function or functions call is registered")
    func functionNames() throws {
        let registered = Set(Backend().registry(tracking: FakeTripTracking()).functions.map(\.name.description))
        var checked = 0
        for document in Self.documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for name in try Self.matches(#"(?:--function|functions call) ([A-Za-z_]+)"#, in: text) {
                #expect(
                    registered.contains(name),
                    "\(document) names the function \(name); registered: \(registered.sorted())"
                )
                checked += 1
            }
        }
        #expect(checked >= 3)
    }

    @Test("every /v1 path a README gives is a route (a $VARIABLE, {name} or <name> segment stands for a parameter)")
    func paths() throws {
        let client = PostgresClient(
            configuration: .init(host: "127.0.0.1", username: "unused", password: nil, database: nil, tls: .disable)
        )
        let routes = Backend().routeList(client: client, logger: .init(label: "docs")).map { route in
            route.split(separator: " ")[1].split(separator: "/").map(String.init)
        }
        var checked = 0
        for document in Self.documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            let paths =
                try Self.matches(#"(/v1/[A-Za-z0-9_/{}<>$.-]*[A-Za-z0-9_}>])"#, in: text)
                + Self.matches(#"(?:localhost|127\.0\.0\.1):8080(/[A-Za-z0-9_/{}<>$.-]*[A-Za-z0-9_}>])"#, in: text)
            for path in paths where path != "/metrics" {  // /metrics is the composition's, beside this router
                let segments = path.split(separator: "/").map(String.init)
                let known = routes.contains { route in
                    route.count == segments.count
                        && zip(route, segments).allSatisfy { template, segment in
                            template == segment
                                || (template.hasPrefix("{")
                                    && ["$", "{", "<"].contains(segment.first.map(String.init) ?? ""))
                        }
                }
                #expect(known, "\(document) gives \(path), which is not a route")
                checked += 1
            }
        }
        #expect(checked >= 10)
    }
}
