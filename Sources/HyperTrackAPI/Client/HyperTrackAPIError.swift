/// The one error type of `HyperTrackAPI`: an HTTP error answer, a transport failure, an answer we could not read,
/// bad input, or a webhook that failed verification.
///
/// Compare errors by ``code``. ``description`` is safe to show anyone (never a credential, never a body);
/// ``debugDescription`` adds the start of the response body and the underlying error.
public struct HyperTrackAPIError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The kind of failure; new kinds can be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case httpStatus = "http_status"
            case unauthorized
            case transport
            case undecodableResponse = "undecodable_response"
            case invalidRequest = "invalid_request"
            case invalidConfiguration = "invalid_configuration"
            case paginationLoop = "pagination_loop"
            case invalidWebhookPayload = "invalid_webhook_payload"
            case missingSignature = "missing_signature"
            case invalidSignature = "invalid_signature"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The service answered with a non-2xx status (other than 401); see ``HyperTrackAPIError/status`` and
        /// ``HyperTrackAPIError/problem``.
        public static let httpStatus = Code(.httpStatus)
        /// 401: the account id or secret key was refused.
        public static let unauthorized = Code(.unauthorized)
        /// The request did not get an answer: connection refused or reset, timeout, TLS.
        public static let transport = Code(.transport)
        /// A 2xx answer whose body is not the JSON we expected.
        public static let undecodableResponse = Code(.undecodableResponse)
        /// The caller's input was refused before anything was sent.
        public static let invalidRequest = Code(.invalidRequest)
        /// The client's configuration is unusable (bad base URL, missing credentials).
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A list kept returning the same next-page cursor.
        public static let paginationLoop = Code(.paginationLoop)
        /// A webhook body that is not a JSON array.
        public static let invalidWebhookPayload = Code(.invalidWebhookPayload)
        /// A webhook without an `x-hypertrack-signature` header.
        public static let missingSignature = Code(.missingSignature)
        /// A webhook whose signature does not match its body.
        public static let invalidSignature = Code(.invalidSignature)

        /// A stable snake_case name, usable as a metric label.
        public var description: String { self.base.rawValue }
    }

    /// The problem document of an error answer (RFC 7807 style), and the `{"message": …}` form of 401.
    public struct Problem: Sendable, Hashable, Decodable {
        /// The HTTP status repeated in the body.
        public var status: Double?
        /// The machine-readable class, e.g. `trip_not_found`.
        public var code: String?
        /// A short summary of the class.
        public var title: String?
        /// A documentation link.
        public var type: String?
        /// What went wrong with this request.
        public var detail: String?
        /// Per-field problems of a validation error, as sent.
        public var invalidParams: JSONValue?
        /// The API gateway's message (`{"message": "Unauthorized"}`).
        public var message: String?

        private enum CodingKeys: String, CodingKey {
            case status, code, title, type, detail, message
            case invalidParams = "invalid_params"
        }

        /// Creates a problem.
        public init(
            status: Double? = nil,
            code: String? = nil,
            title: String? = nil,
            type: String? = nil,
            detail: String? = nil,
            invalidParams: JSONValue? = nil,
            message: String? = nil
        ) {
            self.status = status
            self.code = code
            self.title = title
            self.type = type
            self.detail = detail
            self.invalidParams = invalidParams
            self.message = message
        }
    }

    /// The kind of failure.
    public var code: Code
    /// The HTTP status, when the service answered.
    public var status: Int?
    /// The parsed error body, when there was one we could read.
    public var problem: Problem?
    /// What the service asked us to wait (`Retry-After`), when it did.
    public var retryAfter: Duration?
    /// The request's method, e.g. `GET`.
    public var method: String?
    /// The request's path (no host, no credentials).
    public var path: String?
    /// A human-readable explanation of the failure, free of secrets.
    public var reason: String?
    /// The start of the response body (at most 512 characters); only in ``debugDescription``.
    public var responseBody: String?
    /// The error below this one (transport or decoding), if any.
    public var underlying: (any Error)?
    /// Where the error was created.
    public var file: String
    /// Where the error was created.
    public var line: Int

    /// Creates an error.
    public init(
        code: Code,
        status: Int? = nil,
        problem: Problem? = nil,
        reason: String? = nil,
        underlying: (any Error)? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.status = status
        self.problem = problem
        self.reason = reason
        self.underlying = underlying
        self.file = file
        self.line = line
    }

    /// The service's machine-readable error code (`trip_not_found`, `device_not_found`, …), if it sent one.
    public var problemCode: String? { self.problem?.code }

    public var description: String {
        var parts = ["HyperTrackAPIError.\(self.code)"]
        if let status { parts.append("status \(status)") }
        if let method, let path { parts.append("\(method) \(path)") }
        if let code = self.problem?.code { parts.append(code) }
        if let text = self.problem?.title ?? self.problem?.message { parts.append(text) }
        if let detail = self.problem?.detail { parts.append(detail) }
        if let reason { parts.append(reason) }
        return parts.joined(separator: ": ")
    }

    public var debugDescription: String {
        var text = self.description
        if let responseBody { text += " | body: \(responseBody)" }
        if let underlying { text += " | underlying: \(String(reflecting: underlying))" }
        return text + " [\(self.file):\(self.line)]"
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}
