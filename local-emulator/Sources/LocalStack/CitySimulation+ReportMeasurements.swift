import Foundation

extension CitySimulation.Report {
    /// The plot written next to the report.
    public static let plotFileName = "simulate-pending.svg"

    /// The pending deliveries sampled during the rides, as SVG text.
    public var pendingPlot: String {
        PendingPlot.svg(
            self.sampled.pending,
            title: "Pending trigger deliveries, \(self.configuration.drivers) drivers, "
                + "\(self.configuration.rides) rides at \(self.configuration.rate)/s"
        )
    }

    /// Counts of what was measured, for tests that a run measured each thing it reports.
    public var measuredCounts: MeasuredCounts {
        MeasuredCounts(
            offersSeen: self.bookingToOffer.count,
            offerSteps: self.offerSteps.toSeen.count,
            acceptsToPickingUp: self.measured.acceptToPickingUp.count,
            webhookAcknowledgements: self.measurements.webhookRoundTrips.count,
            webhookWireAcknowledgements: self.measurements.webhookWireRoundTrips.count,
            apiAcknowledgements: self.measurements.apiWebhookTimes?.increase.route.total ?? 0,
            apiAcknowledgementStages: (self.measurements.apiWebhookTimes?.increase.stages ?? [:])
                .filter { $0.value.total > 0 }.keys.sorted(),
            arrivalsToReached: self.measurements.arrivalToReached.count,
            functionsWithLag: self.measurements.lags.map(\.function),
            pendingSamples: self.sampled.pending.count,
            peakKiB: self.sampled.peakKiB,
            machineTicks: self.sampled.machineTicks,
            databaseGrowthBytes: self.measurements.sizeAfter - self.measurements.sizeBefore,
            riderStreamsOpened: self.measured.riderStreamsOpen,
            ridesFollowedToTheEnd: self.measured.ridesFollowedToTheEnd,
            riderEvents: self.measured.riderEvents
        )
    }

    public struct MeasuredCounts: Sendable {
        public var offersSeen: Int
        /// Orders whose offer's time is split into its steps (``CitySimulation/Report/offerSteps``).
        public var offerSteps: Int
        public var acceptsToPickingUp: Int
        public var webhookAcknowledgements: Int
        /// The same acknowledgements timed on the wire (one per acknowledgement the emulator timed).
        public var webhookWireAcknowledgements: Int
        /// The accepted deliveries the API's `/metrics` counted over the same window, and its stages that counted
        /// any (``APIWebhookTimes``).
        public var apiAcknowledgements: Int
        public var apiAcknowledgementStages: [String]
        public var arrivalsToReached: Int
        public var functionsWithLag: [String]
        public var pendingSamples: Int
        public var peakKiB: [String: Int]
        /// The machine's CPU time between the first and last samples, in clock ticks (``MachineUsage``).
        public var machineTicks: Double
        public var databaseGrowthBytes: Int64
        /// Riders following their ride (``Configuration/riderStreams``): streams opened, rides whose final status
        /// reached the rider, events read by name.
        public var riderStreamsOpened: Int
        public var ridesFollowedToTheEnd: Int
        public var riderEvents: [String: Int]
    }

    var processes: [ProcessReport] { ProcessReport.reports(self.sampled) }

    /// Database growth per 1,000 rides booked, in MiB.
    var growthPerThousandRides: Double {
        let grown = Double(self.measurements.sizeAfter - self.measurements.sizeBefore) / 1_048_576
        return self.booked == 0 ? 0 : grown / Double(self.booked) * 1000
    }

    /// Where the offer's time goes (``offerSteps``).
    var offerStepsLine: String {
        let steps = self.offerSteps
        guard steps.toSeen.count > 0 else {
            return "- Where the offer's time goes: no order with its booking, row, first offer and sighting timed."
        }
        return "- Where the offer's time goes (\(steps.toSeen.count) orders; wall clocks, the database's are its "
            + "transactions' starts, so what a transaction does before its write counts in the step after): booking "
            + "sent → order written \(Self.short(steps.toOrder)); → the first `offer.new`'s transaction (0 when the "
            + "booking ran the first round in its own transaction; else the order's commit, capture and claim by "
            + "`dispatchOrder`) \(Self.short(steps.toOffer)); → seen on a driver's stream (the first round's search "
            + "and commit, the event log's sequencing, the API's hub, the stream) \(Self.short(steps.toSeen))."
            + self.offerLastHopText
    }

    /// A step's p50 and p99, as the offer's lines give them.
    private static func short(_ p: Percentiles) -> String { String(format: "p50 %.0f, p99 %.0f ms", p.p50, p.p99) }

    /// The offer's last hop in three (``offerLastHop``), or what is missing for it.
    private var offerLastHopText: String {
        guard let hop = self.offerLastHop else {
            return " Its last step is not split: the database did not time the commits (`track_commit_timestamp`)."
        }
        return " That last step (\(hop.toCommit.count) orders): → the offer's commit (the first round's search, "
            + "writes and commit) \(Self.short(hop.toCommit)); → its event's position committed (the wait for the "
            + "API's hub, its sequencer) \(Self.short(hop.toSequenced)); → seen (the hub's read, the stream, the "
            + "client) \(Self.short(hop.toSeen))."
    }

    /// The acknowledgements as the API timed them (``APIWebhookTimes``): the share within each bound, so that a p99
    /// target is read off directly (p99 ≤ 50 ms when 99% are within 50 ms).
    var apiWebhookTimesLine: String {
        guard let times = self.measurements.apiWebhookTimes else {
            return "- The same acknowledgements timed by the API: not read (no metrics URL: `--api-metrics-url`)."
        }
        let shares = Self.shares
        let failed =
            times.failures == 0
            ? "" : " \(times.failures) of its readings failed (the last: \(times.lastFailure ?? "?"));"
        guard times.increase.route.total > 0 else {
            return "- The same acknowledgements timed by the API: none counted;\(failed) its `/metrics` has no "
                + "accepted delivery of the webhook route."
        }
        let stages = ["read", "decode", "store"].compactMap { stage in
            times.increase.stages[stage].map { "\(stage) \(shares($0, [0.01, 0.05]))" }
        }
        return "- The same acknowledgements timed by the API (its `/metrics`, `http_server_request_duration` of the "
            + "webhook route: request read → reply written, without the sender's own waits):\(failed) "
            + "\(times.increase.route.total) deliveries, \(shares(times.increase.route, [0.025, 0.05, 0.1])) "
            + "within 25 / 50 / 100 ms"
            + (stages.isEmpty
                ? "." : "; by stage (`webhook_intake_duration`) within 10 / 50 ms: \(stages.joined(separator: ", ")).")
    }

    /// The API's event hub as it timed its passes (``APIWebhookTimes/Reading/hub``), read with the acknowledgements;
    /// `nil` when the API's `/metrics` is not read.
    var apiEventHubLine: String? {
        guard let times = self.measurements.apiWebhookTimes else { return nil }
        guard let passes = times.increase.hub["sequence"]?.total, passes > 0 else {
            return "- The API's event hub: no pass counted (its `/metrics` has no `order_events_hub_duration`)."
        }
        let stages = ["sequence", "read"].compactMap { stage in
            times.increase.hub[stage].map { "\(stage) \(Self.shares($0, [0.005, 0.01, 0.05]))" }
        }
        let pauses = times.increase.hub["pause"].map {
            " Paced, \($0.total) pauses between passes (asked for 20 ms by default), within 50 / 100 / 250 ms: "
                + "\(Self.shares($0, [0.05, 0.1, 0.25]))."
        }
        return "- The API's event hub (`order_events_hub_duration`: a pass per notification, or a second without "
            + "one; the log's sequencing, then the new events read and handed to the streams, in every offer's last "
            + "step): \(passes) passes, within 5 / 10 / 50 ms: \(stages.joined(separator: ", "))."
            + (pauses ?? " No paced pause counted.")
    }

    /// `histogram`'s share within each of `bounds` (seconds, its buckets'), as percentages.
    static func shares(_ histogram: APIWebhookTimes.Histogram, _ bounds: [Double]) -> String {
        bounds.map { bound in
            histogram.share(within: bound).map { String(format: "%.1f%%", $0 * 100) } ?? "?"
        }.joined(separator: " / ")
    }

    /// The lines of what issue 19 asks beyond throughput: webhook acknowledgement, arrival → `REACHED_*`, trigger
    /// lag per function, pending deliveries, resources.
    var measurementLines: [String] {
        let m = self.measurements
        let pending = self.sampled.pending
        var lines = [
            "- `POST` webhook acknowledgement: \(Percentiles(m.webhookRoundTrips).text) (timed by the emulator, "
                + "the sender: request sent → reply read, every delivery from the first booking to the end).",
            "- The same on the wire: \(Percentiles(m.webhookWireRoundTrips).text) (the emulator's event loop: the "
                + "request's head written → the reply's end read, without the emulator's own wait to resume the task "
                + "that sent it; an emulator before the 59th session reports none).",
            self.apiWebhookTimesLine,
            "- Arrival webhook → `REACHED_*`: \(Percentiles(m.arrivalToReached).text) (database: the "
                + "`destination_arrival` event's receipt → the order's `order.status` event).",
            String(
                format: "- Pending deliveries (ready, not done), sampled every %@: max %d, last %d (%d samples; "
                    + "plot `%@`).",
                "\(self.configuration.sampleInterval)",
                pending.map(\.pending).max() ?? 0,
                pending.last?.pending ?? 0,
                pending.count,
                Self.plotFileName
            ),
            String(
                format: "- Database: %.1f MiB → %.1f MiB, %.1f MiB per 1,000 rides booked (`pg_database_size`).",
                Double(m.sizeBefore) / 1_048_576,
                Double(m.sizeAfter) / 1_048_576,
                self.growthPerThousandRides
            ),
        ]
        if self.processes.isEmpty {
            lines.append("- Processes: none given to watch.")
        }
        for process in self.processes { lines.append("- Process \(process.text).") }
        lines.append("- \(self.sampled.machineText) (a run with more stolen is slower for it: compare runs alike).")
        lines += [
            "",
            "Trigger lag per function (commit, or a timer's due time → the start of the transaction that marked "
                + "the delivery done: earlier attempts and retries included, the last attempt's own run not):",
            "",
            "| function | deliveries | p50 ms | p99 ms | max ms |",
            "| --- | ---: | ---: | ---: | ---: |",
        ]
        for lag in m.lags {
            lines.append(
                "| `\(lag.function)` | \(lag.count) | "
                    + String(format: "%.1f | %.1f | %.1f |", lag.p50, lag.p99, lag.max)
            )
        }
        if let statements = m.statements, !statements.isEmpty {
            let total = statements.reduce(0) { $0 + $1.totalMilliseconds }
            lines += [
                "",
                "PostgreSQL's busiest statements during the rides (`pg_stat_statements`, execution time only; the "
                    + String(format: "ten took %.0f s in all):", total / 1000),
                "",
                "| statement | calls | total s | mean ms | rows |",
                "| --- | ---: | ---: | ---: | ---: |",
            ]
            for statement in statements {
                let text = statement.query.count > 160 ? statement.query.prefix(157) + "..." : statement.query
                lines.append(
                    "| `\(text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'"))` | "
                        + String(
                            format: "%d | %.1f | %.2f | %d |",
                            statement.calls,
                            statement.totalMilliseconds / 1000,
                            statement.meanMilliseconds,
                            statement.rows
                        )
                )
            }
        }
        return lines
    }
}
