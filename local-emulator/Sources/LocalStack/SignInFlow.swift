import Foundation
import HyperTrackAPI
import NIOHTTP1

/// How the Swift clients of the API make users (the demo, the tests' clients of the router and of running stacks):
/// ask for a code, read it from the local outbox (`GET /local/auth/codes/{phone}`, a route only the local stack and
/// the tests mount), trade it for tokens, and complete the profile with `PUT /v1/me`, as an app does. One flow over
/// any transport: each client passes its own `send`.
public struct SignInFlow: Sendable {
    /// Sends `method path` with an optional JSON body and bearer token; returns the status and JSON body.
    public typealias Send =
        @Sendable (_ method: HTTPMethod, _ path: String, _ json: JSONValue?, _ token: String?)
        async throws -> (status: Int, json: JSONValue)

    /// A signed-in user.
    public struct Session: Sendable {
        /// The user's id.
        public var userID: String
        /// The bearer token.
        public var accessToken: String
        /// Trades for a new pair once.
        public var refreshToken: String
        /// The session's id.
        public var sessionID: String
    }

    /// The last code sent to a phone.
    public typealias Codes = @Sendable (_ phone: String) async throws -> String

    let send: Send
    let codes: Codes?

    /// Creates the flow over a client's `send`.
    /// - Parameters:
    ///   - send: The client's request function.
    ///   - codes: Where codes are read; `nil`: the local outbox at `GET /local/auth/codes/{phone}` (the local
    ///     stack's and the tests' routers). Against `serve`, the SMS webhook's receiver.
    public init(send: @escaping Send, codes: Codes? = nil) {
        self.send = send
        self.codes = codes
    }

    /// A phone number no other user of a test or demo has: `+49 151` and 8 random digits.
    public static func newPhone() -> String {
        "+49151" + String(format: "%08d", Int.random(in: 0..<100_000_000))
    }

    /// The last code the outbox sent to `phone`.
    public func code(for phone: String) async throws -> String {
        if let codes = self.codes { return try await codes(phone) }
        let reply = try await self.expect(200, .GET, "/local/auth/codes/\(phone.filter(\.isNumber))")
        guard let code = reply["code"].stringValue else {
            throw LocalStackError.unexpectedReply("the outbox's reply has no code: \(reply)")
        }
        return code
    }

    /// Asks for a code for `phone` and `role`, reads it from the outbox and signs in.
    public func signIn(phone: String, role: String) async throws -> Session {
        try await self.expect(202, .POST, "/v1/auth/code", ["phone": .string(phone), "role": .string(role)])
        let code = try await self.code(for: phone)
        let reply = try await self.expect(
            201,
            .POST,
            "/v1/auth/session",
            ["phone": .string(phone), "code": .string(code)]
        )
        guard let id = reply["user_id"].stringValue, let access = reply["access_token"].stringValue,
            let refresh = reply["refresh_token"].stringValue, let session = reply["session_id"].stringValue
        else { throw LocalStackError.unexpectedReply("the sign-in's reply lacks its tokens: \(reply)") }
        return Session(userID: id, accessToken: access, refreshToken: refresh, sessionID: session)
    }

    /// Signs a rider in and names them.
    public func rider(_ name: String, phone: String = Self.newPhone()) async throws -> Session {
        let session = try await self.signIn(phone: phone, role: "rider")
        try await self.expect(200, .PUT, "/v1/me", ["name": .string(name)], token: session.accessToken)
        return session
    }

    /// Signs a driver in, completes their profile with `device` and, unless `online` is false, puts them online (a
    /// new driver is offline).
    public func driver(
        _ name: String,
        device: String,
        car: (model: String, plate: String) = ("Prius", "B-RS 42"),
        online: Bool = true,
        phone: String = Self.newPhone()
    ) async throws -> Session {
        let session = try await self.signIn(phone: phone, role: "driver")
        try await self.expect(
            200,
            .PUT,
            "/v1/me",
            [
                "name": .string(name), "device_id": .string(device),
                "car": ["model": .string(car.model), "plate": .string(car.plate)],
            ],
            token: session.accessToken
        )
        if online {
            try await self.expect(
                200,
                .PUT,
                "/v1/drivers/me/availability",
                ["available": true],
                token: session.accessToken
            )
        }
        return session
    }

    @discardableResult
    private func expect(
        _ status: Int,
        _ method: HTTPMethod,
        _ path: String,
        _ json: JSONValue? = nil,
        token: String? = nil
    ) async throws -> JSONValue {
        let reply = try await self.send(method, path, json, token)
        guard reply.status == status else {
            throw LocalStackError.unexpectedReply(
                "\(method) \(path): expected \(status), got \(reply.status) \(reply.json)"
            )
        }
        return reply.json
    }
}

extension StackAPI {
    /// The sign-in flow over this client.
    public var accounts: SignInFlow {
        SignInFlow { method, path, json, token in
            let reply = try await self.send(method, path, json: json, token: token)
            return (reply.status, reply.json)
        }
    }
}
