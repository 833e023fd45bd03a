import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

extension HyperTrackClient {
    /// Turns a non-2xx answer into an error: RFC 7807 body, `{"message"}` body, or any other body kept as text.
    static func errorFromAnswer(status: Int, headers: HTTPHeaders, body: ByteBuffer) -> HyperTrackAPIError {
        let problem = try? HyperTrackJSON.makeDecoder().decode(HyperTrackAPIError.Problem.self, from: body)
        var error = HyperTrackAPIError(
            code: status == 401 ? .unauthorized : .httpStatus,
            status: status,
            problem: problem,
            reason: problem == nil && body.readableBytes > 0 ? "the error body is not JSON" : nil
        )
        error.responseBody = body.readableBytes > 0 ? Self.snippet(body) : nil
        error.retryAfter = headers.first(name: "Retry-After").flatMap { Self.parseRetryAfter($0, now: Date()) }
        return error
    }

    /// `Retry-After` is delay-seconds (`120`, tolerated with a fraction) or an HTTP-date
    /// (`Wed, 21 Oct 2015 07:28:00 GMT`).
    static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 {
            return .milliseconds(Int64((seconds * 1000).rounded(.up)))
        }
        guard let date = Self.parseHTTPDate(text) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// IMF-fixdate, the only HTTP-date form servers may send.
    static func parseHTTPDate(_ text: String) -> Date? {
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5].uppercased() == "GMT", let day = Int(parts[1]),
            let monthIndex = months.firstIndex(of: parts[2].lowercased()), let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        let days = HyperTrackDate.daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]))
    }
}
