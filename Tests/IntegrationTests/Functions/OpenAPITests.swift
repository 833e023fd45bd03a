import Foundation
import Functions
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import Testing

/// The OpenAPI document is the API's contract: it names every route the router has, and nothing else.
@Suite("Functions: the OpenAPI document", .timeLimit(.minutes(10)))
struct OpenAPITests {
    /// The router's routes that the document describes: all of `/v1`, and the public share page's.
    static func documentedRoutes(_ h: BackendHarness) -> Set<String> {
        Set(
            h.backend.routeList(client: h.client, logger: BackendHarness.logger).filter {
                $0.contains(" /v1/") || $0.contains(" /share/")
            }
        )
    }

    @Test("the document's literals are valid JSON")
    func literals() throws {
        try OpenAPIDocument.validateLiterals()
    }

    @Test("every route of /v1 is in the document, and every operation of the document is a route")
    func routesMatch() async throws {
        try await BackendHarness.with { h in
            let routes = Self.documentedRoutes(h)
            let operations = OpenAPIDocument(configuration: h.backend.configuration).operations
            #expect(routes.count >= 14, "\(routes.sorted())")
            for route in routes.subtracting(operations).sorted() {
                Issue.record(
                    """
                    \(route) is routed but missing from the OpenAPI document: add its operation to `paths` in \
                    Sources/Functions/API/OpenAPI/OpenAPIDocument+Paths.swift
                    """
                )
            }
            for operation in operations.subtracting(routes).sorted() {
                Issue.record(
                    """
                    \(operation) is in the OpenAPI document (OpenAPIDocument+Paths.swift) but the router has no such \
                    route: remove it from the document or register the route
                    """
                )
            }
        }
    }

    @Test("the server's event-stream predicate names exactly the document's text/event-stream operations")
    func eventStreamPaths() throws {
        let document = OpenAPIDocument(configuration: Backend.Configuration()).json
        var streams: [String] = []
        for (path, item) in document["paths"].objectValue ?? [:] {
            let isStream = item["get"]["responses"]["200"]["$ref"] == "#/components/responses/EventStream"
            if isStream { streams.append(path) }
            #expect(
                Backend.mayOpenEventStream(path: path) == isStream,
                "\(path): Backend.mayOpenEventStream and the document disagree"
            )
        }
        #expect(streams.count == 3, "\(streams.sorted())")
        #expect(Backend.mayOpenEventStream(path: "/v1/orders/0b4f1a3e-8d3c-4c1e-9a55-3d2e1f0a9b7c/events"))
        #expect(!Backend.mayOpenEventStream(path: "/v1/orders/0b4f1a3e-8d3c-4c1e-9a55-3d2e1f0a9b7c"))
    }

    @Test("served at /openapi.json without a token; every $ref resolves; every operation documents its problems")
    func served() async throws {
        try await BackendHarness.with { h in
            let reply = try await h.api.send(.GET, "/openapi.json")
            #expect(reply.status == 200)
            #expect(reply.headers.first { $0.0.lowercased() == "content-type" }?.1 == "application/json")
            let document = reply.json
            #expect(document == OpenAPIDocument(configuration: h.backend.configuration).json)
            #expect(document["openapi"] == "3.1.0")
            #expect(document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer")
            let limit = document["paths"]["/v1/orders"]["get"]["parameters"][0]["schema"]["maximum"]
            #expect(limit == .number(Double(h.backend.configuration.maximumPageSize)))
            var references: [String] = []
            Self.collectReferences(document, into: &references)
            #expect(references.count > 50)
            for reference in Set(references) {
                let target = reference.dropFirst(2).split(separator: "/").reduce(document) { $0[String($1)] }
                #expect(target != .null, "\(reference) does not resolve")
            }
            var operationIDs: [String] = []
            for (path, item) in document["paths"].objectValue ?? [:] {
                for (method, operation) in item.objectValue ?? [:] where method != "parameters" {
                    let responses = operation["responses"].objectValue ?? [:]
                    #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(method) \(path) has no success")
                    #expect(responses["default"] != nil, "\(method) \(path) has no default problem")
                    let isPublic = operation["security"] != .null
                    #expect(isPublic || responses["401"] != nil, "\(method) \(path) needs auth but has no 401")
                    operationIDs.append(operation["operationId"].stringValue ?? "")
                }
            }
            #expect(Set(operationIDs).count == operationIDs.count && !operationIDs.contains(""))
        }
    }

    static func collectReferences(_ value: JSONValue, into references: inout [String]) {
        switch value {
        case .object(let fields):
            if let reference = fields["$ref"]?.stringValue { references.append(reference) }
            for field in fields.values { self.collectReferences(field, into: &references) }
        case .array(let items):
            for item in items { self.collectReferences(item, into: &references) }
        default:
            break
        }
    }
}
