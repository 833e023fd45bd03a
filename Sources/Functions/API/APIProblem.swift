import Foundation
import HTTPTypes
import Hummingbird

/// An API error rendered as a JSON problem body `{"status", "title", "detail"}` (RFC 9457 fields).
public struct APIProblem: HTTPResponseError, Sendable, Equatable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A short, stable summary of the error class.
    public var title: String
    /// What exactly went wrong, naming the offending field where there is one.
    public var detail: String
    /// Headers the status calls for (`Allow` on a 405).
    public var headers: HTTPFields = [:]

    /// Creates a problem.
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - title: The error class; defaults to the status's reason phrase.
    ///   - detail: What went wrong.
    public init(_ status: HTTPResponse.Status, title: String? = nil, detail: String) {
        self.status = status
        self.title = title ?? status.reasonPhrase
        self.detail = detail
    }

    /// The body as sent.
    public struct Body: Codable, Sendable, Equatable {
        /// The HTTP status code.
        public var status: Int
        /// The error class.
        public var title: String
        /// What went wrong.
        public var detail: String
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONEncoder().encode(Body(status: self.status.code, title: self.title, detail: self.detail))
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        headers[.contentLength] = "\(data.count)"
        return Response(status: self.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func badRequest(_ detail: String) -> APIProblem { APIProblem(.badRequest, detail: detail) }
    static func validation(_ field: String, _ message: String) -> APIProblem {
        APIProblem(.unprocessableContent, title: "Invalid field", detail: "\(field): \(message)")
    }
    static func notFound(_ detail: String) -> APIProblem { APIProblem(.notFound, detail: detail) }
    static func conflict(_ detail: String) -> APIProblem { APIProblem(.conflict, detail: detail) }
    static func methodNotAllowed(
        _ method: HTTPRequest.Method,
        path: String,
        allowed: [HTTPRequest.Method]
    ) -> APIProblem {
        var problem = APIProblem(
            .methodNotAllowed,
            detail: "\(method.rawValue) \(path): use \(allowed.map(\.rawValue).joined(separator: ", "))"
        )
        problem.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
        return problem
    }
    static func forbidden(_ detail: String) -> APIProblem { APIProblem(.forbidden, detail: detail) }
    static let unauthorized = APIProblem(.unauthorized, detail: "a valid bearer token is required")
}
