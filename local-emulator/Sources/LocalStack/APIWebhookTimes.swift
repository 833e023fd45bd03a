import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The webhook acknowledgements as the API itself timed them: its `/metrics` histograms of the webhook route
/// (`http_server_request_duration`, 202 answers) and of its stages (`webhook_intake_duration`), read during a run and
/// added up as Prometheus' `increase()` does (a reading below the one before is a restarted API, counted from zero).
///
/// Why both sides: the emulator times an acknowledgement as the sender (request sent → reply read), and in a
/// simulation the sender shares the machine's two cores with the backend, so its p99 also holds the sender's own
/// waits for a core, which HyperTrack's sender (AWS SNS) does not share with a deployment. In a run of the 41st
/// session the API answered 99.5% of the deliveries within 50 ms while the emulator's p99 was 75 ms.
final class APIWebhookTimes: Sendable {
    /// Cumulative counts by upper bound in seconds (`+Inf` as `.infinity`) of one histogram, summed over the series
    /// a reading kept.
    struct Histogram: Sendable, Equatable {
        var counts: [Double: Int] = [:]

        var total: Int { self.counts[.infinity] ?? 0 }

        /// The share of observations at or under `seconds` (a bucket's bound); `nil` without observations or
        /// without that bucket.
        func share(within seconds: Double) -> Double? {
            guard self.total > 0, let count = self.counts[seconds] else { return nil }
            return Double(count) / Double(self.total)
        }

        /// `self` grown by what `next` counted since `previous` (all of `next` when it is below `previous`: the
        /// process started again).
        mutating func add(from previous: Histogram, to next: Histogram) {
            let restarted = next.total < previous.total
            for (bound, count) in next.counts {
                self.counts[bound, default: 0] += restarted ? count : max(0, count - (previous.counts[bound] ?? 0))
            }
        }
    }

    /// One reading of `/metrics`: the route's histogram, each intake stage's, and each stage of the API's event hub
    /// (`order_events_hub_duration`: the passes that sequence and read the event log, in every offer a driver sees).
    struct Reading: Sendable, Equatable {
        var route = Histogram()
        var stages: [String: Histogram] = [:]
        var hub: [String: Histogram] = [:]

        static let routeBucket = "http_server_request_duration_bucket{"
        static let stageBucket = "webhook_intake_duration_bucket{"
        static let hubBucket = "order_events_hub_duration_bucket{"

        /// The webhook route's accepted deliveries (either of its paths), the intake's stages and the hub's, from
        /// the text exposition; other lines are skipped.
        static func parse(_ text: String) -> Reading {
            var reading = Reading()
            for line in text.split(separator: "\n") {
                let isRoute = line.hasPrefix(Self.routeBucket)
                let isHub = line.hasPrefix(Self.hubBucket)
                guard isRoute || isHub || line.hasPrefix(Self.stageBucket),
                    let labelsEnd = line.lastIndex(of: "}"),
                    let count = Double(line[line.index(after: labelsEnd)...].trimmingCharacters(in: .whitespaces)),
                    let bound = Self.label("le", in: line[..<labelsEnd]).flatMap(Self.bound)
                else { continue }
                if isRoute {
                    guard Self.label("http_route", in: line[..<labelsEnd])?.hasPrefix("/v1/hypertrack/webhooks") == true,
                        Self.label("http_response_status_code", in: line[..<labelsEnd]) == "202"
                    else { continue }
                    reading.route.counts[bound, default: 0] += Int(count)
                } else if let stage = Self.label("stage", in: line[..<labelsEnd]) {
                    if isHub {
                        reading.hub[stage, default: Histogram()].counts[bound, default: 0] += Int(count)
                    } else {
                        reading.stages[stage, default: Histogram()].counts[bound, default: 0] += Int(count)
                    }
                }
            }
            return reading
        }

        /// The value of `name="…"` among `labels` (the exposition's values here hold no quotes).
        static func label(_ name: String, in labels: Substring) -> String? {
            guard let start = labels.range(of: "\(name)=\"") else { return nil }
            let rest = labels[start.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }

        static func bound(_ text: String) -> Double? { text == "+Inf" ? .infinity : Double(text) }

        mutating func add(from previous: Reading, to next: Reading) {
            self.route.add(from: previous.route, to: next.route)
            for (stage, histogram) in next.stages {
                self.stages[stage, default: Histogram()].add(from: previous.stages[stage] ?? Histogram(), to: histogram)
            }
            for (stage, histogram) in next.hub {
                self.hub[stage, default: Histogram()].add(from: previous.hub[stage] ?? Histogram(), to: histogram)
            }
        }
    }

    struct State: Sendable {
        var last: Reading?
        /// What the readings after the first counted.
        var increase = Reading()
        var failures = 0
        var lastFailure: String?
    }

    /// The `/metrics` URL read.
    let url: String
    private let state = Mutex(State())

    init(metricsBaseURL: String) { self.url = metricsBaseURL + "/metrics" }

    /// Reads `/metrics` once and adds what it counted since the reading before (the first reading is the baseline).
    /// A failed reading is counted and otherwise changes nothing: the next one covers its interval.
    func read() async {
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: self.url), timeout: .seconds(10))
            guard response.status == .ok else { throw LocalStackError.unexpectedReply("GET \(self.url): \(response.status)") }
            let body = try await response.body.collect(upTo: 16 << 20)
            let reading = Reading.parse(String(buffer: body))
            self.state.withLock { state in
                if let last = state.last { state.increase.add(from: last, to: reading) }
                state.last = reading
            }
        } catch {
            // A reading cut short by the rides' end is not the API's failure.
            if Task.isCancelled { return }
            self.state.withLock { state in
                state.failures += 1
                state.lastFailure = "\(error)"
            }
        }
    }

    var snapshot: State { self.state.withLock { $0 } }
}
