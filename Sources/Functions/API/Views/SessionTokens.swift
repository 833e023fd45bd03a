import Foundation
import Hummingbird

/// `POST /v1/auth/session` and `POST /v1/auth/refresh`: a new access token and refresh token (each shown once).
public struct SessionTokens: Codable, Sendable, ResponseEncodable {
    /// The bearer token of every other route; expires after `expires_in` seconds.
    public var accessToken: String
    /// Trades for a new pair at `POST /v1/auth/refresh`, once.
    public var refreshToken: String
    /// Seconds the access token works.
    public var expiresIn: Int
    /// Always `Bearer`.
    public var tokenType = "Bearer"
    /// The session (`GET /v1/me/sessions`).
    public var sessionID: UUID
    /// The signed-in user.
    public var userID: UUID
    /// Their role.
    public var role: UserRole

    init(accessToken: String, refreshToken: String, expiresIn: Int, sessionID: UUID, userID: UUID, role: UserRole) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.sessionID = sessionID
        self.userID = userID
        self.role = role
    }

    private enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
        case sessionID = "session_id"
        case userID = "user_id"
        case role
    }
}

/// One live session of the caller in `GET /v1/me/sessions`.
public struct SessionView: Codable, Sendable, Hashable {
    /// The session's id (`DELETE /v1/me/sessions/{id}`).
    public var id: UUID
    /// When it signed in.
    public var createdAt: Date
    /// When it last refreshed.
    public var refreshedAt: Date
    /// When it must sign in again at the latest.
    public var expiresAt: Date
    /// Whether it is the session of the request.
    public var current: Bool

    private enum CodingKeys: String, CodingKey {
        case id, current
        case createdAt = "created_at"
        case refreshedAt = "refreshed_at"
        case expiresAt = "expires_at"
    }
}

/// `GET /v1/me/sessions`.
public struct SessionList: Codable, Sendable, ResponseEncodable {
    /// Newest first.
    public var sessions: [SessionView]
}

/// `POST /v1/auth/code`'s answer.
public struct CodeSentView: Codable, Sendable, ResponseEncodable {
    /// Seconds the code works.
    public var expiresIn: Int

    private enum CodingKeys: String, CodingKey {
        case expiresIn = "expires_in"
    }
}
