import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Sign-in by phone code and sessions: `POST /v1/auth/code`, `POST /v1/auth/session`, `POST /v1/auth/refresh`
/// (public), `POST /v1/auth/signout`, `GET /v1/me/sessions` and `DELETE /v1/me/sessions/{id}` (signed in).
struct AuthRoutes: Sendable {
    let accounts: AccountStore

    func register(public group: RouterGroup<APIRequestContext>, authenticated: RouterGroup<APIRequestContext>) {
        group.post("auth/code") { request, context in
            let body = try await RequestDecoding.decode(CodeRequestBody.self, from: request, context: context)
            let phone = try Validate.normalizedPhone(body.phone, field: "phone")
            guard let role = UserRole(rawValue: body.role) else {
                throw APIProblem.validation("role", "must be rider or driver")
            }
            guard let delivery = self.accounts.settings.delivery else {
                throw APIProblem(
                    .serviceUnavailable,
                    detail: "sign-in codes cannot be sent: no code delivery is configured (AUTH_CODE_WEBHOOK_URL)"
                )
            }
            switch try await self.accounts.requestCode(phone: phone, role: role) {
            case .tooMany(let retryAfter):
                var problem = APIProblem(
                    .tooManyRequests,
                    detail: "phone: \(self.accounts.settings.codesPerHour) codes were sent to this phone in the "
                        + "last hour; try again in \(retryAfter) s"
                )
                problem.headers[.retryAfter] = "\(retryAfter)"
                throw problem
            case .sent(let message):
                do {
                    try await delivery.deliver(message)
                } catch {
                    context.logger.error("sign-in code not delivered", metadata: ["error": "\(error)"])
                    throw APIProblem(.badGateway, detail: "the sign-in code could not be sent; try again")
                }
                let ttl = Int(self.accounts.settings.codeTTL.seconds)
                return EditedResponse(status: .accepted, response: CodeSentView(expiresIn: ttl))
            }
        }
        group.post("auth/session") { request, context in
            let body = try await RequestDecoding.decode(SessionBody.self, from: request, context: context)
            let phone = try Validate.normalizedPhone(body.phone, field: "phone")
            let code = try Validate.code(body.code, field: "code")
            let check: AccountStore.CodeCheck
            do {
                check = try await self.accounts.checkCode(phone: phone, code: code)
            } catch let error where PostgresErrors.isUniqueViolation(error) {
                // Two first sign-ins of one phone and role at once: the second created the account too and rolled
                // back (its try and the code's use with it), so the same code works again.
                throw APIProblem.conflict("another sign-in of this phone is under way; try again")
            }
            switch check {
            case .signedIn(let tokens):
                return EditedResponse(status: .created, response: tokens)
            case .noCode:
                throw APIProblem(
                    .unauthorized,
                    title: "Invalid code",
                    detail: "code: this phone has no unused, unexpired code; request one at POST /v1/auth/code"
                )
            case .wrong(let remaining):
                throw APIProblem(
                    .unauthorized,
                    title: "Invalid code",
                    detail: "code: wrong code; \(remaining) tries left"
                )
            case .exhausted:
                throw APIProblem(
                    .tooManyRequests,
                    detail: "code: too many wrong tries; request a new code at POST /v1/auth/code"
                )
            }
        }
        group.post("auth/refresh") { request, context in
            let body = try await RequestDecoding.decode(RefreshBody.self, from: request, context: context)
            switch try await self.accounts.refresh(tokenHash: Tokens.hash(body.refreshToken)) {
            case .refreshed(let tokens):
                return tokens
            case .invalid:
                throw APIProblem(
                    .unauthorized,
                    detail: "refresh_token: not valid (expired, revoked or unknown); sign in again"
                )
            case .reused:
                throw APIProblem(
                    .unauthorized,
                    detail: "refresh_token: already used; the session is revoked, sign in again"
                )
            }
        }

        authenticated.post("auth/signout") { _, context in
            try await self.accounts.signOut(try context.requireCaller())
            return Response(status: .noContent)
        }
        authenticated.get("me/sessions") { _, context in
            let caller = try context.requireCaller()
            return SessionList(sessions: try await self.accounts.sessions(userID: caller.id, current: caller.sessionID))
        }
        authenticated.delete("me/sessions/:id") { _, context in
            let caller = try context.requireCaller()
            let text = context.parameters.get("id") ?? ""
            guard let id = UUID(uuidString: text), try await self.accounts.revoke(session: id, userID: caller.id)
            else { throw APIProblem.notFound("session \(text) does not exist") }
            return Response(status: .noContent)
        }
    }

    /// `GET /local/auth/codes/{phone}`: the last code the local outbox sent to a phone (its digits, without `+`). Only a router whose code
    /// delivery is a ``CodeOutbox`` (the local stack's, the tests') has it.
    static func registerLocal(_ router: Router<APIRequestContext>, outbox: CodeOutbox) {
        router.get("local/auth/codes/:phone") { _, context in
            let phone = context.parameters.get("phone") ?? ""
            guard let message = outbox.latest(phone: phone) else {
                throw APIProblem.notFound("no code was sent to \(phone)")
            }
            return LocalCodeView(phone: message.phone, role: message.role, code: message.code)
        }
    }
}

/// `GET /local/auth/codes/{phone}`.
struct LocalCodeView: Codable, Sendable, ResponseEncodable {
    var phone: String
    var role: UserRole
    var code: String
}
