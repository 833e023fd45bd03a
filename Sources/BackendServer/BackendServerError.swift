/// The error of the backend's composition: what went wrong, safe to show anyone.
public struct BackendServerError: Error, CustomStringConvertible, Sendable, Equatable {
    enum Code: Sendable, Equatable {
        case invalidConfiguration(String)
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    /// A configuration value is wrong; the message names the variable or flag.
    static func invalidConfiguration(_ message: String) -> Self { Self(.invalidConfiguration(message)) }

    public var description: String {
        switch self.code {
        case .invalidConfiguration(let message): message
        }
    }
}
