import Hummingbird

/// `/healthz`, `/readyz`, and the webhook receiver's answer.
public struct StatusView: Codable, Sendable, ResponseEncodable {
    /// The status.
    public var status: String
    /// More about the status, when there is more.
    public var detail: String?
}
