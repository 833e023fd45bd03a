import Foundation
import HyperTrackAPI
import LocalStack

/// The tests make users through the one Swift sign-in flow (``SignInFlow``: a code from the outbox, the session,
/// `PUT /v1/me`), over this client's transport.
extension APIClient {
    /// The sign-in flow over this client.
    var accounts: SignInFlow {
        SignInFlow { method, path, json, token in
            let reply = try await self.send(method, path, json: json, token: token)
            return (reply.status, reply.json)
        }
    }

    /// A phone number no other user of the test has.
    static func newPhone() -> String { SignInFlow.newPhone() }

    /// Signs a user in (no profile yet).
    func signIn(phone: String, role: String) async throws -> SignInFlow.Session {
        try await self.accounts.signIn(phone: phone, role: role)
    }

    /// Signs a new rider in and names them; returns (id, access token).
    func rider(_ name: String = "Ria", phone: String = Self.newPhone()) async throws -> (id: String, token: String) {
        let session = try await self.accounts.rider(name, phone: phone)
        return (session.userID, session.accessToken)
    }

    /// Signs a new driver in, completes their profile with `device` and, unless `online` is false, puts them online
    /// (a new driver is offline); returns (id, access token).
    func driver(
        _ name: String = "Dana",
        device: String,
        online: Bool = true,
        phone: String = Self.newPhone()
    ) async throws -> (id: String, token: String) {
        let session = try await self.accounts.driver(name, device: device, online: online, phone: phone)
        return (session.userID, session.accessToken)
    }
}
