import Foundation
import Hummingbird
import Logging
import NIOCore

/// Routes every request by hand (so `/trips` and `/trips/` are the same route, never a redirect, and unknown routes
/// get the problem body), checks Basic auth on the HyperTrack API, and applies HTTP faults.
struct EmulatorResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let engine: Engine
    let stepper: Stepper
    let expectedAuthorization: String

    init(engine: Engine, stepper: Stepper, configuration: HyperTrackEmulator.Configuration) {
        self.engine = engine
        self.stepper = stepper
        let credentials = Data("\(configuration.accountID):\(configuration.secretKey)".utf8).base64EncodedString()
        self.expectedAuthorization = "Basic \(credentials)"
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        var request = request
        let segments: [Substring] = request.uri.path.split(separator: "/").map { segment in
            segment.removingPercentEncoding.map { Substring($0) } ?? segment
        }
        let call = APICall(
            method: request.method.rawValue, path: request.uri.path, segments: segments,
            query: request.uri.queryParameters.map { (String($0.key), String($0.value)) },
            body: try await request.collectBody(upTo: 4 << 20))
        do {
            if segments.first == "_emulator" { return try await control(call) }
            guard request.headers[.authorization] == expectedAuthorization else {
                return Self.json(["message": "Unauthorized"], status: 401, errorHeaders: true)
            }
            let fault = await engine.httpFaultOutcome(method: call.method, path: segments)
            if fault.latencyMilliseconds > 0 { try await Task.sleep(for: .milliseconds(fault.latencyMilliseconds)) }
            if let problem = fault.problem { throw problem }
            return try await api(call)
        } catch let problem as APIProblem {
            context.logger.debug(
                "answering with a problem",
                metadata: ["emulator.code": "\(problem.code)", "http.response.status_code": "\(problem.status)"])
            return Self.problem(problem)
        }
    }

    static func json(_ value: JSON, status: Int, errorHeaders: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if errorHeaders { headers[.contentLanguage] = "en-US" }
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.bytes)))
    }

    static func problem(_ problem: APIProblem) -> Response {
        var response = json(problem.body, status: problem.status, errorHeaders: true)
        if let retryAfter = problem.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    /// A success without a body.
    static func empty(_ status: Int) -> Response { Response(status: HTTPResponse.Status(code: status)) }
}

/// The parts of a request the routes look at.
struct APICall: Sendable {
    var method: String
    var path: String
    var segments: [Substring]
    var query: [(String, String)]
    var body: ByteBuffer

    func query(_ name: String) -> String? { query.first { $0.0 == name }?.1 }

    /// The body as JSON; a 400 `wrong_content_format` when it is missing or not JSON.
    func json() throws(APIProblem) -> JSON {
        guard body.readableBytes > 0 else { throw .wrongContentFormat("A JSON body is required") }
        guard let value = JSON.parse(body.readableBytesView) else { throw .wrongContentFormat() }
        return value
    }

    var routeNotFound: APIProblem { .routeNotFound(method, path) }
    var methodNotAllowed: APIProblem { .methodNotAllowed(method, path) }
}
