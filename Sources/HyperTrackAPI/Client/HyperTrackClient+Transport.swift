import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A response with a 2xx status.
struct RawResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer
}

/// Whether a request may be sent again after a failure whose outcome is unknown.
enum Repeatability: Sendable {
    /// GET, PATCH, DELETE and command POSTs: repeating has the same effect as sending once.
    case safe
    /// Creating something: never repeated blindly.
    case once
}

extension HyperTrackClient {
    /// Builds `path?query` with every path segment and query item percent-encoded.
    func target(_ segments: [String], query: [(String, String)] = []) -> String {
        let path = "/" + segments.map(Self.encodeSegment).joined(separator: "/")
        guard !query.isEmpty else { return path }
        let items = query.map { "\(Self.encodeQuery($0.0))=\(Self.encodeQuery($0.1))" }
        return path + "?" + items.joined(separator: "&")
    }

    static func encodeSegment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func encodeQuery(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#%/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Rejects an empty id before anything is sent (it would address the collection instead).
    func requireID(_ id: String, _ name: String) throws {
        guard !id.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HyperTrackAPIError(code: .invalidRequest, reason: "\(name) must not be empty")
        }
    }

    /// Sends a request with a JSON body and decodes the JSON answer.
    func send<Body: Encodable, Result: Decodable>(
        _ method: HTTPMethod,
        _ target: String,
        json body: Body,
        as type: Result.Type,
        repeatability: Repeatability
    ) async throws -> Result {
        let response = try await self.send(method, target, body: try self.encode(body), repeatability: repeatability)
        return try self.decode(type, from: response, method: method, target: target)
    }

    /// Sends a request without a body and decodes the JSON answer.
    func get<Result: Decodable>(_ target: String, as type: Result.Type) async throws -> Result {
        let response = try await self.send(.GET, target, body: nil, repeatability: .safe)
        return try self.decode(type, from: response, method: .GET, target: target)
    }

    func encode(_ body: some Encodable) throws -> ByteBuffer {
        do {
            return ByteBuffer(data: try HyperTrackJSON.makeEncoder().encode(body))
        } catch {
            throw HyperTrackAPIError(code: .invalidRequest, reason: "request body is not encodable", underlying: error)
        }
    }

    func decode<Result: Decodable>(
        _ type: Result.Type,
        from response: RawResponse,
        method: HTTPMethod,
        target: String
    ) throws -> Result {
        do {
            return try HyperTrackJSON.makeDecoder().decode(type, from: response.body)
        } catch {
            var failure = HyperTrackAPIError(
                code: .undecodableResponse,
                status: response.status,
                reason: "the answer is not a \(Result.self)",
                underlying: error
            )
            failure.method = method.rawValue
            failure.path = Self.pathOnly(target)
            failure.responseBody = Self.snippet(response.body)
            throw failure
        }
    }

    /// Sends one request, retrying as the policy allows, and returns the 2xx answer or throws.
    func send(
        _ method: HTTPMethod,
        _ target: String,
        body: ByteBuffer?,
        repeatability: Repeatability
    ) async throws -> RawResponse {
        let policy = self.configuration.retryPolicy
        let maxAttempts = repeatability == .safe ? policy.maxAttempts : 1
        var attempt = 1
        while true {
            let wait: Duration
            do {
                return try await self.sendOnce(method, target, body: body, attempt: attempt)
            } catch let error as HyperTrackAPIError {
                guard attempt < maxAttempts, let delay = self.retryDelay(for: error, retry: attempt) else { throw error }
                wait = delay
                self.logger.notice(
                    "HyperTrack request will be retried",
                    metadata: [
                        "http.method": "\(method.rawValue)", "http.path": "\(Self.pathOnly(target))",
                        "http.attempt": "\(attempt)", "retry.delay": "\(wait)", "error": "\(error)",
                    ]
                )
            }
            try await Task.sleep(for: wait)
            attempt += 1
        }
    }

    private func retryDelay(for error: HyperTrackAPIError, retry: Int) -> Duration? {
        let policy = self.configuration.retryPolicy
        switch error.code {
        case .transport:
            return policy.backoff(beforeRetry: retry)
        case .httpStatus:
            guard let status = error.status, status == 429 || (500...599).contains(status) else { return nil }
            if let retryAfter = error.retryAfter {
                return retryAfter <= policy.maxRetryAfter ? retryAfter : nil
            }
            return policy.backoff(beforeRetry: retry)
        default:
            return nil
        }
    }

    private func sendOnce(
        _ method: HTTPMethod,
        _ target: String,
        body: ByteBuffer?,
        attempt: Int
    ) async throws
        -> RawResponse
    {
        var request = HTTPClientRequest(url: self.url(for: target))
        request.method = method
        request.headers.add(name: "Authorization", value: self.authorization)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "ridesharing-backend HyperTrackAPI")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(body)
        } else if method == .POST || method == .PATCH {
            request.body = .bytes(ByteBuffer())
        }
        let path = Self.pathOnly(target)
        var metadata: Logger.Metadata = [
            "http.method": "\(method.rawValue)", "http.path": "\(path)", "http.attempt": "\(attempt)",
        ]
        if let body, self.logger.logLevel <= .trace {
            self.logger.trace("HyperTrack request body", metadata: ["http.body": "\(Self.snippet(body))"])
        }
        let started = ContinuousClock.now
        let status: Int
        let headers: HTTPHeaders
        let responseBody: ByteBuffer
        do {
            let response = try await self.httpClient.execute(request, timeout: .nanoseconds(self.timeoutNanoseconds))
            status = Int(response.status.code)
            headers = response.headers
            responseBody = try await response.body.collect(upTo: self.configuration.maxResponseBytes)
        } catch let error as CancellationError {
            throw error
        } catch {
            metadata["duration_ms"] = "\(Self.milliseconds(ContinuousClock.now - started))"
            metadata["error.type"] = "\(type(of: error))"
            self.logger.log(level: self.configuration.requestLogLevel, "HyperTrack request failed", metadata: metadata)
            var failure = HyperTrackAPIError(code: .transport, reason: "no answer from HyperTrack", underlying: error)
            failure.method = method.rawValue
            failure.path = path
            throw failure
        }
        metadata["http.status"] = "\(status)"
        metadata["duration_ms"] = "\(Self.milliseconds(ContinuousClock.now - started))"
        self.logger.log(level: self.configuration.requestLogLevel, "HyperTrack request", metadata: metadata)
        if self.logger.logLevel <= .trace, responseBody.readableBytes > 0 {
            self.logger.trace("HyperTrack response body", metadata: ["http.body": "\(Self.snippet(responseBody))"])
        }
        guard (200..<300).contains(status) else {
            var failure = Self.errorFromAnswer(status: status, headers: headers, body: responseBody)
            failure.method = method.rawValue
            failure.path = path
            throw failure
        }
        return RawResponse(status: status, headers: headers, body: responseBody)
    }

    private var timeoutNanoseconds: Int64 {
        let (seconds, attoseconds) = self.configuration.timeout.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// The absolute URL of a target; `target` starts with `/`.
    func url(for target: String) -> String {
        var base = self.base
        base.path = ""
        return (base.string ?? self.configuration.baseURL) + self.base.path + target
    }

    static func pathOnly(_ target: String) -> String {
        String(target.prefix { $0 != "?" })
    }

    static func snippet(_ buffer: ByteBuffer) -> String {
        let text = String(buffer: buffer)
        return text.count > 512 ? String(text.prefix(512)) + "…" : text
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
