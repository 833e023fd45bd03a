import Hummingbird

/// A registration's answer: the user and their bearer token (shown once).
public struct RegistrationView: Codable, Sendable, ResponseEncodable {
    /// The registered user.
    public var user: UserView
    /// The bearer token; shown only here.
    public var token: String
}
