import TriggerRuntime

/// No planner statistics for the columns that hold documents: `ANALYZE` skips them.
///
/// **Why.** Autovacuum's `ANALYZE` of a growing table sorts a sample of up to 30,000 rows per column to find its
/// most common values and histogram, and a `jsonb` column sorts with `jsonb_cmp`, which walks both documents (values
/// over 1 KB are left out of the sort, a location event's few hundred bytes are not). In a perf profile of the
/// 4,000-ride city (35th session) an autovacuum worker was 5% of the machine's samples over 20 s, `qsort` and
/// `jsonb_cmp` half of its time. No statement filters, joins or groups on these columns (they are only read out), so
/// their statistics served no plan.
///
/// Measured (36th session, BENCHMARKS.md): on the database a 4,000-ride run left (`webhook_events` 100 MB,
/// `order_events` 176 MB), `ANALYZE` of `webhook_events` took 520 ms of CPU before and 290 ms after, `order_events` 260
/// and 210 ms (medians of three, alternated); autovacuum's CPU over a whole run (`log_autovacuum_min_duration = 0`)
/// went from 9.2 s to 5.2 s. Small (the run used ~1,000 CPU-seconds), but each of those analyses was a half-second
/// burst on a saturated machine, and nothing is given up for it.
///
/// ``columns`` is the one list; `DocumentStatisticsTests` checks that it names every `jsonb` column of the schema (a
/// new one is listed, or the test says why a statement needs its statistics) and that `ANALYZE` gathers none for them.
///
/// Additive, for a rolling upgrade: statistics change plans, not results, and no plan read these.
enum M0032DocumentStatistics {
    /// `table.column` of every column whose statistics are not gathered.
    static let columns = [
        "webhook_events.payload", "webhook_events.summary",
        "webhook_rejections.payload",
        "order_events.payload",
        "orders.summary",
        "order_legs.route", "order_legs.estimate_route",
        "driver_trips.events", "driver_trips.path", "driver_trips.ratings",
    ]

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0032_document_statistics",
        statements: Self.columns.map { qualified in
            let parts = qualified.split(separator: ".")
            return "ALTER TABLE \(parts[0]) ALTER COLUMN \(parts[1]) SET STATISTICS 0"
        }
    )
}
