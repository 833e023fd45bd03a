import Logging

extension HyperTrackClient {
    /// Where and as whom the client talks to HyperTrack, and how patiently.
    ///
    /// The secret key never appears in `description`, `debugDescription` or a `dump`. The client reads no
    /// environment: the executable's settings build this value (`Sources/Ridesharing/Setting+Backend.swift`).
    public struct Configuration: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// HyperTrack's production API.
        public static let defaultBaseURL = "https://v3.api.hypertrack.com"

        /// The API's base URL, e.g. `https://v3.api.hypertrack.com` or the local emulator's `http://127.0.0.1:4010`.
        public var baseURL: String
        /// The account id (the user name of HTTP Basic auth).
        public var accountID: String
        /// The secret key (the password of HTTP Basic auth).
        public var secretKey: String
        /// The time limit of one attempt of one request.
        public var timeout: Duration
        /// Retries of requests that are safe to repeat.
        public var retryPolicy: RetryPolicy
        /// The pause between two polls of a Nearby request.
        public var nearbyPollInterval: Duration
        /// The largest response body accepted, in bytes.
        public var maxResponseBytes: Int
        /// The level of the one log line per request (method, path, status, duration). Bodies are only logged at
        /// `.trace`.
        public var requestLogLevel: Logger.Level

        /// Creates a configuration.
        /// - Parameters:
        ///   - baseURL: The API's base URL.
        ///   - accountID: The account id.
        ///   - secretKey: The secret key.
        ///   - timeout: The time limit of one attempt.
        ///   - retryPolicy: Retries of requests that are safe to repeat.
        public init(
            baseURL: String = Configuration.defaultBaseURL,
            accountID: String,
            secretKey: String,
            timeout: Duration = .seconds(30),
            retryPolicy: RetryPolicy = RetryPolicy()
        ) {
            self.baseURL = baseURL
            self.accountID = accountID
            self.secretKey = secretKey
            self.timeout = timeout
            self.retryPolicy = retryPolicy
            self.nearbyPollInterval = .seconds(1)
            self.maxResponseBytes = 32 * 1024 * 1024
            self.requestLogLevel = .info
        }

        public var description: String {
            "HyperTrackClient.Configuration(baseURL: \(self.baseURL), accountID: \(self.accountID), "
                + "secretKey: <redacted>, timeout: \(self.timeout), maxAttempts: \(self.retryPolicy.maxAttempts))"
        }

        public var debugDescription: String { self.description }

        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "baseURL": self.baseURL, "accountID": self.accountID, "secretKey": "<redacted>",
                    "timeout": self.timeout, "retryPolicy": self.retryPolicy,
                ]
            )
        }
    }
}
