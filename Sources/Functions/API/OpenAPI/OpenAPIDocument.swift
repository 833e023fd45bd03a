import Foundation
import HTTPTypes
import Hummingbird
import HyperTrackAPI

/// The OpenAPI 3.1 document of `/v1`, served at `GET /openapi.json`.
///
/// Hand-written (``paths`` and ``components``, JSON in Swift string literals so the binary needs no resource
/// bundle) rather than generated: swift-openapi-generator's build plugin would add its parser and generator to
/// every clean build of a 2-core machine, for twelve routes. It is kept true by tests rather than by construction:
/// `OpenAPITests` compares its paths and methods with the router's (`Router.routes`) both ways, and the CI's
/// schemathesis run (`.ci/schemathesis`) checks every response of a running stack against its schemas.
public struct OpenAPIDocument: Sendable {
    /// The document as a JSON value.
    public let json: JSONValue

    /// The document for a backend with `configuration` (its page size bound).
    /// - Parameter configuration: The backend's configuration.
    public init(configuration: Backend.Configuration) {
        let decoder = JSONDecoder()
        // Both literals are parsed by `OpenAPITests` on every run: a typo fails a test, never a request.
        let parse = { (text: String) in (try? decoder.decode(JSONValue.self, from: Data(text.utf8))) ?? .object([:]) }
        let paths = Self.merging(parse(Self.paths), parse(Self.accountPaths))
        var components = parse(Self.components)
        if case .object(var parts) = components {
            parts["schemas"] = Self.merging(parts["schemas"] ?? .object([:]), parse(Self.accountSchemas))
            components = .object(parts)
        }
        let document: JSONValue = [
            "openapi": "3.1.0",
            "info": [
                "title": "ridesharing-backend",
                "version": "1",
                "description": .string(Self.description),
            ],
            "security": [["bearer": []]],
            "paths": paths,
            "components": components,
        ]
        self.json = Self.substitute(document, ["{maximumPageSize}": .number(Double(configuration.maximumPageSize))])
    }

    /// Parses both JSON literals, throwing the parser's error (with its position) for a typo; the initialiser
    /// would serve an empty part instead, so `OpenAPITests` calls this first.
    public static func validateLiterals() throws {
        _ = try JSONDecoder().decode(JSONValue.self, from: Data(Self.paths.utf8))
        _ = try JSONDecoder().decode(JSONValue.self, from: Data(Self.components.utf8))
        _ = try JSONDecoder().decode(JSONValue.self, from: Data(Self.accountPaths.utf8))
        _ = try JSONDecoder().decode(JSONValue.self, from: Data(Self.accountSchemas.utf8))
    }

    /// The keys of two JSON objects together (the second's win); anything else is the first.
    static func merging(_ first: JSONValue, _ second: JSONValue) -> JSONValue {
        guard case .object(let left) = first, case .object(let right) = second else { return first }
        return .object(left.merging(right) { $1 })
    }

    static let description = """
        The HTTP API of the rider and driver apps. Every error is a JSON problem body (`application/problem+json`: \
        `status`, `title`, `detail`, naming the offending field). Authenticate with the access token of \
        `POST /v1/auth/session` (a phone's one-time code) or `POST /v1/auth/refresh`; the `/v1/ops` routes with an \
        operator's key. Text fields refuse control characters; lengths count Unicode code points.
        """

    /// The document as served: sorted keys, so that it is byte-for-byte stable.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self.json)
    }

    /// The paths and methods the document describes, as `"GET /v1/orders/{id}"`.
    public var operations: Set<String> {
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]
        var result: Set<String> = []
        for (path, item) in self.json["paths"].objectValue ?? [:] {
            for method in (item.objectValue ?? [:]).keys where methods.contains(method) {
                result.insert("\(method.uppercased()) \(path)")
            }
        }
        return result
    }

    private static func substitute(_ value: JSONValue, _ table: [String: JSONValue]) -> JSONValue {
        switch value {
        case .string(let text): table[text] ?? value
        case .array(let items): .array(items.map { self.substitute($0, table) })
        case .object(let fields): .object(fields.mapValues { self.substitute($0, table) })
        default: value
        }
    }
}

extension JSONValue {
    fileprivate subscript(key: String) -> JSONValue {
        self.objectValue?[key] ?? .null
    }
}
