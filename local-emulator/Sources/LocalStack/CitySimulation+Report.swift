import BenchSupport
import Foundation

extension CitySimulation {
    /// What a run measured and whether its invariants hold.
    public struct Report: Sendable {
        var configuration: Configuration
        var runID: String
        var setupSeconds: Double
        /// From the first booking to every ride final (or the deadline).
        var rideSeconds: Double
        /// Whether every ride was final before the deadline.
        public var reachedEnd: Bool
        var orders: [String]
        /// Requests made while setting up (excluded from the rides' requests per second).
        var requestsBefore: Int
        /// Emulated seconds the simulation moved the clock during the rides (0 when it leaves the clock alone).
        var clockSeconds: Double
        var measured: SimulationRecorder.State
        /// Location events the webhook endpoint acknowledged during the rides (every device's), counted by the emulator.
        public var locationEvents: Int
        /// This run's trips on the emulator (two per completed ride: pickup and drop-off).
        public var trips: Int
        public var invariants: [Invariant]
        /// Where the rides that did not end stopped (``CitySimulation/unfinished(orders:emulator:limit:)``).
        public var unfinished: [String]
        /// Pending deliveries and the watched processes, sampled during the rides.
        var sampled: SimulationSampler.State
        /// Read from the database and the emulator once the rides were over.
        var measurements: DatabaseMeasurements
        /// What went wrong on purpose meanwhile (``SimulationChaos/lines``), set by the caller after the run.
        public var chaos: [String] = []

        /// Rides booked, and how many a driver completed.
        public var booked: Int { self.orders.count }
        public var completed: Int { self.measured.completedByDrivers }
        public var errors: Int { self.measured.errors }
        /// Whether every invariant is 0 and every ride ended in time.
        public var passed: Bool { self.reachedEnd && self.invariants.allSatisfy { $0.count == 0 } }

        var bookingToOffer: Percentiles {
            Percentiles(
                self.measured.bookedAt.compactMap { order, booked in
                    self.measured.firstOfferAt[order].map { SimulationClient.milliseconds($0 - booked) }
                }
            )
        }

        /// Booking → first offer seen, in three steps, for the orders with all four times: the booking sent → the
        /// order's row written (the request, to its transaction's start), → the transaction of its first
        /// `offer.new` (the commit, capture and claim), → seen on a driver's stream (`dispatchOrder`'s search and
        /// commit, the event log's sequencing, the API's hub, the stream and the client's read). The wall clocks of
        /// one machine; the database's times are `now()`, its transactions' starts.
        var offerSteps: (toOrder: Percentiles, toOffer: Percentiles, toSeen: Percentiles) {
            var steps: ([Double], [Double], [Double]) = ([], [], [])
            for (order, booked) in self.measured.bookedAtWall {
                guard let seen = self.measured.firstOfferAtWall[order],
                    let id = UUID(uuidString: order), let writes = self.measurements.offerWrites[id],
                    let offered = writes.firstOffer
                else { continue }
                steps.0.append(writes.order.timeIntervalSince(booked) * 1000)
                steps.1.append(offered.timeIntervalSince(writes.order) * 1000)
                steps.2.append(seen.timeIntervalSince(offered) * 1000)
            }
            return (Percentiles(steps.0), Percentiles(steps.1), Percentiles(steps.2))
        }

        /// The last of ``offerSteps`` in three, for the orders whose first offer's commit and sequencing the database
        /// timed (it tracks commit timestamps): the first `offer.new`'s transaction → its commit (`dispatchOrder`'s
        /// search, writes and commit), → its event's position committed (the wait for the API's hub and its
        /// sequencer), → seen on a driver's stream (the hub's read, the stream and the client's read). `nil` when
        /// no order has both.
        var offerLastHop: (toCommit: Percentiles, toSequenced: Percentiles, toSeen: Percentiles)? {
            var steps: ([Double], [Double], [Double]) = ([], [], [])
            for (order, seen) in self.measured.firstOfferAtWall {
                guard let id = UUID(uuidString: order), let writes = self.measurements.offerWrites[id],
                    let offered = writes.firstOffer, let committed = writes.firstOfferCommitted,
                    let sequenced = writes.firstOfferSequenced
                else { continue }
                steps.0.append(committed.timeIntervalSince(offered) * 1000)
                steps.1.append(sequenced.timeIntervalSince(committed) * 1000)
                steps.2.append(seen.timeIntervalSince(sequenced) * 1000)
            }
            guard !steps.0.isEmpty else { return nil }
            return (Percentiles(steps.0), Percentiles(steps.1), Percentiles(steps.2))
        }

        var requests: Int { self.measured.routes.values.reduce(0) { $0 + $1.count } }

        /// The report as lines of markdown (also what is printed).
        public var lines: [String] {
            let c = self.configuration
            let seconds = max(self.rideSeconds, 0.001)
            var lines = [
                "Configuration: \(c.drivers) drivers, \(c.rides) rides at \(c.rate)/s, seed \(c.seed), centre "
                    + "\(c.centerLatitude),\(c.centerLongitude), radius \(Int(c.radiusMeters)) m, clock step "
                    + "\(c.clockStep) emulated s every \(c.clockInterval), offers "
                    + (c.offers == .push ? "pushed on `GET /v1/events` " : "polled every \(c.offerPollInterval) ")
                    + "(run \(self.runID)).",
                "",
                String(
                    format: "- Set-up: %.1f s. Rides: %d booked, %d completed by their drivers in %.1f s",
                    self.setupSeconds,
                    self.booked,
                    self.completed,
                    self.rideSeconds
                )
                    + (self.reachedEnd ? "" : " (DEADLINE: not every ride ended)") + "; \(self.errors) errors.",
                String(
                    format: "- Throughput: %.2f rides completed/s, %.1f API requests/s (%d requests during the rides).",
                    Double(self.completed) / seconds,
                    Double(self.requests - self.requestsBefore) / seconds,
                    self.requests - self.requestsBefore
                ),
                c.clockStep > 0
                    ? String(
                        format:
                            "- Emulated clock: %.2f× real time during the rides (asked: %.2f×; a step waits for its "
                            + "webhooks' answers).",
                        self.clockSeconds / seconds,
                        c.clockStep / CitySimulation.seconds(c.clockInterval)
                    )
                    : "- Emulated clock: left to its own rate.",
                String(
                    format: "- Location events taken in by the webhook endpoint: %.1f/s (%d during the rides, in "
                        + "the deliveries it acknowledged, as the emulator counted them; sent as its clock moves).",
                    Double(self.locationEvents) / seconds,
                    self.locationEvents
                ),
                "- Booking → first offer seen by a driver: \(self.bookingToOffer.text) "
                    + (c.offers == .push
                        ? "(from sending the booking to the `offer.new` event's bytes arriving on a driver's stream)."
                        : "(bounded below by the offer poll interval)."),
                self.offerStepsLine,
            ] + [self.apiEventHubLine].compactMap { $0 } + [
                "- Accept → `PICKING_UP` seen by the driver: \(Percentiles(self.measured.acceptToPickingUp).text) "
                    + (c.offers == .push ? "(its `order.status` event)." : "(read every \(c.orderPollInterval))."),
            ]
            if c.offers == .push {
                let gone = SimulationRecorder.mostFrequent(self.measured.offersGone)
                let reasons = gone.map { "\($0.kind) \($0.count)" }.joined(separator: ", ")
                lines.append(
                    "- Offers not answered because the app no longer showed them when the driver got to them or "
                        + "finished thinking: \(gone.reduce(0) { $0 + $1.count })"
                        + (gone.isEmpty ? "." : " (\(reasons)).")
                )
            }
            if c.riderStreams {
                let m = self.measured
                let kinds = SimulationRecorder.mostFrequent(m.riderEvents).map { "\($0.kind) \($0.count)" }
                lines.append(
                    "- Riders following their ride (`GET /v1/orders/{id}/events` from booking to the final status): "
                        + "\(m.riderStreamsOpen) streams opened, \(m.ridesFollowedToTheEnd) saw their ride's final "
                        + "status"
                        + (m.ridesFollowedToTheEnd < self.booked
                            ? " (**\(self.booked - m.ridesFollowedToTheEnd) of \(self.booked) booked did not**)" : "")
                        + "; events read: \(kinds.isEmpty ? "none" : kinds.joined(separator: ", ")). Accept → "
                        + "`PICKING_UP` seen by the rider: \(Percentiles(m.acceptToPickingUpForRider).text)."
                )
            }
            lines += self.measurementLines
            lines += [
                "",
                "| route | requests | p50 ms | p99 ms | max ms |",
                "| --- | ---: | ---: | ---: | ---: |",
            ]
            for route in self.measured.routes.keys.sorted() {
                let p = Percentiles(self.measured.routes[route] ?? [])
                lines.append(
                    "| `\(route)` | \(p.count) | " + String(format: "%.1f | %.1f | %.1f |", p.p50, p.p99, p.max)
                )
            }
            if !self.chaos.isEmpty { lines += [""] + self.chaos }
            lines.append("")
            lines.append("Invariants (each must be 0; \(self.trips) HyperTrack trips of this run checked):")
            lines.append("")
            for invariant in self.invariants {
                lines.append("- \(invariant.count == 0 ? "0" : "**\(invariant.count)**"): \(invariant.name)")
            }
            if let last = self.measured.lastError {
                lines.append("- last error: \(last)")
                let kinds = SimulationRecorder.mostFrequent(self.measured.errorKinds)
                for (kind, count) in kinds.prefix(5) { lines.append("- \(count) errors: \(kind)") }
                if kinds.count > 5 { lines.append("- and \(kinds.count - 5) other kinds of error") }
            }
            if !self.unfinished.isEmpty {
                lines.append("")
                lines.append("Rides that did not end (at most five, oldest change first):")
                lines.append("")
                lines += self.unfinished.map { "- \($0)" }
            }
            return lines
        }

        /// Writes the report between the simulate markers of a markdown file (appended when missing), with the
        /// command and the machine, and the pending-deliveries plot next to it (``plotFileName``, linked).
        public func write(into path: String, command: String) throws {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try self.pendingPlot.write(
                to: directory.appendingPathComponent(Self.plotFileName),
                atomically: true,
                encoding: .utf8
            )
            let machine = ProcessInfo.processInfo
            let memory = String(format: "%.1f", Double(machine.physicalMemory) / 1_073_741_824)
            let date = ISO8601DateFormatter().string(from: Date())
            let section =
                [
                    "## A city in a box (`ridesharing simulate`)",
                    "",
                    "Written by `\(command)` on \(date), \(machine.activeProcessorCount) cores, \(memory) GiB.",
                    "",
                ] + self.lines + [
                    "", "Pending deliveries during the rides: ![pending deliveries](\(Self.plotFileName))",
                ]
            try ReportSection(name: "simulate").write(section.joined(separator: "\n"), into: path)
        }
    }
}
