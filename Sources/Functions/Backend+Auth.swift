extension Backend.Configuration {
    /// Sign-in and sessions (issue 17).
    ///
    /// Access tokens are opaque (random, stored as SHA-256) rather than signed (jwt-kit): every request looks its
    /// token up anyway to find the caller, so a signed token would save no query, and a stored one is revoked the
    /// moment its session is (sign-out, `DELETE /v1/me/sessions/{id}`, refresh-token reuse) instead of living on
    /// until it expires. Every expiry is compared with the database's clock (`now()`), so tests move time by moving
    /// rows, never by waiting.
    public struct Auth: Sendable {
        /// How long an access token works. Default 1 hour.
        public var accessTokenTTL: Duration
        /// How long a session (its refresh tokens) lasts without signing in again. Default 30 days.
        public var refreshTokenTTL: Duration
        /// How long a sign-in code works. Default 5 minutes.
        public var codeTTL: Duration
        /// Tries per code; the next try is refused even with the right code. Default 5.
        public var codeMaxAttempts: Int
        /// Codes a phone may be sent per hour. Default 5.
        public var codesPerHour: Int
        /// Where codes go; `nil`: code requests are refused with 503. A ``CodeOutbox`` also mounts
        /// `GET /local/auth/codes/{phone}` (the local stack's control route).
        public var delivery: (any CodeDelivery)?

        /// Creates the settings with the documented defaults.
        public init(
            accessTokenTTL: Duration = .seconds(3600),
            refreshTokenTTL: Duration = .seconds(30 * 86_400),
            codeTTL: Duration = .seconds(300),
            codeMaxAttempts: Int = 5,
            codesPerHour: Int = 5,
            delivery: (any CodeDelivery)? = nil
        ) {
            self.accessTokenTTL = accessTokenTTL
            self.refreshTokenTTL = refreshTokenTTL
            self.codeTTL = codeTTL
            self.codeMaxAttempts = codeMaxAttempts
            self.codesPerHour = codesPerHour
            self.delivery = delivery
        }
    }
}
