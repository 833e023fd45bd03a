import Foundation

/// An error answered on the wire as an RFC 7807-style body (`status`, `code`, `title`, `type`, `detail`).
struct APIProblem: Error, Sendable {
    var status: Int
    var code: String
    var title: String
    var detail: String
    var invalidParams: JSON?
    /// Seconds for a `Retry-After` header.
    var retryAfter: Int?
    /// For faults: a body other than the problem object.
    var extraFields: [String: JSON] = [:]

    var body: JSON {
        var fields: [String: JSON] = [
            "status": .number(Double(status)), "code": .string(code), "title": .string(title),
            "type": .string("https://docs.hypertrack.com/#\(code.replacingOccurrences(of: "_", with: "-"))"),
            "detail": .string(detail),
        ]
        if let invalidParams { fields["invalid_params"] = invalidParams }
        fields.merge(extraFields) { _, extra in extra }
        return .object(fields)
    }

    static func tripNotFound(_ id: String) -> APIProblem {
        APIProblem(
            status: 404, code: "trip_not_found", title: "Trip could not be found",
            detail: "Trip with the id '\(id)' does not exist")
    }

    static func deviceNotFound(_ id: String) -> APIProblem {
        APIProblem(
            status: 404, code: "device_not_found", title: "Device could not be found",
            detail: "Device with the id '\(id)' does not exist")
    }

    static func geofenceNotFound(_ id: String) -> APIProblem {
        APIProblem(
            status: 404, code: "geofence_not_found", title: "Geofence could not be found",
            detail: "Geofence with the id '\(id)' does not exist")
    }

    static func routeNotFound(_ method: String, _ path: String) -> APIProblem {
        APIProblem(
            status: 404, code: "route_not_found", title: "Route could not be found",
            detail: "No route for \(method) \(path)")
    }

    static func methodNotAllowed(_ method: String, _ path: String) -> APIProblem {
        APIProblem(
            status: 405, code: "method_not_allowed", title: "Method not allowed",
            detail: "\(method) is not supported on \(path)")
    }

    static func wrongContentFormat(_ detail: String = "The request body is not valid JSON") -> APIProblem {
        APIProblem(status: 400, code: "wrong_content_format", title: "Wrong content format", detail: detail)
    }

    /// A validation failure naming the offending field.
    static func invalid(_ field: String, _ reason: String) -> APIProblem {
        APIProblem(
            status: 400, code: "validation_error", title: "Validation error", detail: "\(field): \(reason)",
            invalidParams: [.object(["name": .string(field), "reason": .string(reason)])])
    }

    static func tooManyRequests(retryAfter: Int) -> APIProblem {
        APIProblem(
            status: 429, code: "too_many_requests", title: "Too Many Requests",
            detail: "Rate limit exceeded, retry after \(retryAfter) s",
            retryAfter: retryAfter, extraFields: ["message": "Too Many Requests"])
    }
}
