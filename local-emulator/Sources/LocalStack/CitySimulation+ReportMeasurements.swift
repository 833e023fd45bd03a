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
            acceptsToPickingUp: self.measured.acceptToPickingUp.count,
            webhookAcknowledgements: self.measurements.webhookRoundTrips.count,
            arrivalsToReached: self.measurements.arrivalToReached.count,
            functionsWithLag: self.measurements.lags.map(\.function),
            pendingSamples: self.sampled.pending.count,
            peakKiB: self.sampled.peakKiB,
            databaseGrowthBytes: self.measurements.sizeAfter - self.measurements.sizeBefore,
            riderStreamsOpened: self.measured.riderStreamsOpen,
            ridesFollowedToTheEnd: self.measured.ridesFollowedToTheEnd,
            riderEvents: self.measured.riderEvents
        )
    }

    public struct MeasuredCounts: Sendable {
        public var offersSeen: Int
        public var acceptsToPickingUp: Int
        public var webhookAcknowledgements: Int
        public var arrivalsToReached: Int
        public var functionsWithLag: [String]
        public var pendingSamples: Int
        public var peakKiB: [String: Int]
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

    /// The lines of what issue 19 asks beyond throughput: webhook acknowledgement, arrival → `REACHED_*`, trigger
    /// lag per function, pending deliveries, resources.
    var measurementLines: [String] {
        let m = self.measurements
        let pending = self.sampled.pending
        var lines = [
            "- `POST` webhook acknowledgement: \(Percentiles(m.webhookRoundTrips).text) (timed by the emulator, "
                + "the sender: request sent → reply read, every delivery from the first booking to the end).",
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
        lines += [
            "",
            "Trigger lag per function (commit, or a timer's due time → delivery done; includes the handler's run "
                + "and any retries):",
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
