import Foundation
import Synchronization

/// What a simulation measures as it runs, shared by its many tasks: every API request by route, the errors, when
/// each ride was booked and first offered, accept → `PICKING_UP`, and the rides each driver finished.
final class SimulationRecorder: Sendable {
    struct State {
        /// Milliseconds of every request, by `METHOD /route/{template}`.
        var routes: [String: [Double]] = [:]
        var errors = 0
        var lastError: String?
        /// Errors by their kind (``SimulationRecorder/kind(of:)``): what a run that failed by the thousand failed on.
        var errorKinds: [String: Int] = [:]
        /// When the rider sent each booking, by order id (known once the reply came).
        var bookedAt: [String: ContinuousClock.Instant] = [:]
        /// When a driver first saw each order among its offers.
        var firstOfferAt: [String: ContinuousClock.Instant] = [:]
        /// The same two instants on the wall clock, to set beside the database's times (``offerSteps``).
        var bookedAtWall: [String: Date] = [:]
        var firstOfferAtWall: [String: Date] = [:]
        var acceptToPickingUp: [Double] = []
        /// Offers the driver meant to answer but the app no longer showed when it got to them or when its think
        /// ended, by why (``CitySimulation/Offer/gone(closed:)``): mostly taken by another driver of the round.
        var offersGone: [String: Int] = [:]
        var completedByDrivers = 0
        /// Bookings the API did not accept (counted among the errors too).
        var bookingsFailed = 0
        /// Drivers whose event stream delivered its first bytes (pushed offers only).
        var streamsOpen = 0
        /// When a driver's accept was answered 200, by order id.
        var acceptedAt: [String: ContinuousClock.Instant] = [:]
        /// Riders following their ride (``CitySimulation/Configuration/riderStreams``): streams that delivered
        /// their first bytes, events by name, rides whose final status reached the rider, and accept → `PICKING_UP`
        /// on the rider's stream.
        var riderStreamsOpen = 0
        var riderEvents: [String: Int] = [:]
        var ridesFollowedToTheEnd = 0
        var acceptToPickingUpForRider: [Double] = []
    }

    let state = Mutex(State())
    /// What the run is waiting on (its requests, streams and phases).
    let activity = SimulationActivity()

    func request(_ route: String, milliseconds: Double) {
        self.state.withLock { $0.routes[route, default: []].append(milliseconds) }
    }

    func error(_ description: String) {
        // The masking's regular expressions run before the lock: a burst of errors (8,312 in one progress interval
        // of the chaos run) should not hold every task that records something.
        let kind = Self.kind(of: description)
        self.state.withLock {
            $0.errors += 1
            $0.lastError = description
            $0.errorKinds[kind, default: 0] += 1
        }
    }

    /// Error kinds and their counts, the most frequent first (ties by kind), for the progress lines and the report.
    static func mostFrequent(_ kinds: [String: Int]) -> [(kind: String, count: Int)] {
        kinds.map { (kind: $0.key, count: $0.value) }.sorted { ($0.count, $1.kind) > ($1.count, $0.kind) }
    }

    /// An error's description with what differs between instances of one failure (numbers, ids, phones) replaced
    /// by `#`, and cut at 160 characters: the 17th session's 10-minute run counted 3,594 errors in 30 s and kept
    /// only the last one's text, so what failed stayed unknown.
    static func kind(of description: String) -> String {
        var kind = String(description.prefix(400))
        kind.replace(/[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}/, with: "#")
        kind.replace(/\b[0-9]+(\.[0-9]+)?\b/, with: "#")
        return String(kind.prefix(160))
    }

    func booked(_ order: String, at instant: ContinuousClock.Instant) {
        let wall = Self.wall(instant)
        self.state.withLock {
            $0.bookedAt[order] = instant
            $0.bookedAtWall[order] = wall
        }
    }

    /// Keeps the first sighting only (several drivers may be offered the same order).
    func offerSeen(_ order: String, at instant: ContinuousClock.Instant) {
        let wall = Self.wall(instant)
        self.state.withLock { state in
            if let earlier = state.firstOfferAt[order], earlier <= instant { return }
            state.firstOfferAt[order] = instant
            state.firstOfferAtWall[order] = wall
        }
    }

    /// A recent instant on the wall clock: now's wall time less the time since (instants are recorded moments
    /// after they happen, when a reply or an event has been read).
    static func wall(_ instant: ContinuousClock.Instant) -> Date {
        Date(timeIntervalSinceNow: -CitySimulation.seconds(ContinuousClock.now - instant))
    }

    func offerGone(_ reason: String) { self.state.withLock { $0.offersGone[reason, default: 0] += 1 } }

    func pickingUp(after milliseconds: Double) {
        self.state.withLock { $0.acceptToPickingUp.append(milliseconds) }
    }

    func bookingFailed(_ description: String) {
        self.state.withLock { $0.bookingsFailed += 1 }
        self.error(description)
    }

    /// A driver's stream is open (counted once per driver).
    func streamOpened() { self.state.withLock { $0.streamsOpen += 1 } }

    var streamsOpenCount: Int { self.state.withLock { $0.streamsOpen } }

    func completed() { self.state.withLock { $0.completedByDrivers += 1 } }

    func accepted(_ order: String, at instant: ContinuousClock.Instant) {
        self.state.withLock { $0.acceptedAt[order] = instant }
    }

    /// A rider's stream delivered its first bytes (counted once per ride).
    func riderStreamOpened() { self.state.withLock { $0.riderStreamsOpen += 1 } }

    /// An event on a rider's stream; with `pickingUpAt` (the ride's first `PICKING_UP` on it), timed from the
    /// driver's accept.
    func riderEvent(_ name: String, order: String, pickingUpAt: ContinuousClock.Instant?) {
        self.state.withLock { state in
            state.riderEvents[name, default: 0] += 1
            if let pickingUpAt, let accepted = state.acceptedAt[order] {
                state.acceptToPickingUpForRider.append(SimulationClient.milliseconds(pickingUpAt - accepted))
            }
        }
    }

    func riderSawTheEnd() { self.state.withLock { $0.ridesFollowedToTheEnd += 1 } }

    var ridesFollowedToTheEndCount: Int { self.state.withLock { $0.ridesFollowedToTheEnd } }

    var snapshot: State { self.state.withLock { $0 } }
}

/// p50, p99 and max of a sample, in its unit.
struct Percentiles: Sendable {
    var count: Int
    var p50: Double
    var p99: Double
    var max: Double

    init(_ values: [Double]) {
        let sorted = values.sorted()
        self.count = sorted.count
        func at(_ q: Double) -> Double {
            sorted.isEmpty
                ? .nan : sorted[Swift.min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - 1)]
        }
        self.p50 = at(0.5)
        self.p99 = at(0.99)
        self.max = sorted.last ?? .nan
    }

    var text: String {
        self.count == 0
            ? "no samples"
            : String(format: "p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d)", self.p50, self.p99, self.max, self.count)
    }
}
