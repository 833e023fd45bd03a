import TriggerRuntime

/// A position written again unchanged (a still phone's periodic report) no longer runs the rider's position event
/// trigger, and `driver_positions` keeps room on its pages for updates in place.
///
/// **Why.** Most location events are still phones reporting where they already are: in the 10,000-driver city the
/// idle drivers (most of them) report every 25 emulated seconds. The intake's upsert of each delivery (425 rows on
/// average) was PostgreSQL's largest statement (`pg_stat_statements`: 23.6 ms mean, 37.5 s of a 7-minute run), and
/// every updated row ran `order_events_on_position()`, a plpgsql call with a query of the driver's open order, to
/// find nearly always that the driver has none, or that the position did not move. An update now runs it only when
/// the latitude or longitude changed (`WHEN` is evaluated without calling the function); an insert always does. A
/// driver on a ride who stands still emits nothing new: the rider already has that position.
///
/// `fillfactor` 50: an update that changes no indexed column (a still phone: `recorded_at` only) can stay on its
/// page (a HOT update, no index entry); with full pages it moved and took a new GiST entry. 55% of the updates were
/// HOT in the run above. (The table holds one row per driver: 10,000 drivers take about 7 MB at 50%.)
///
/// Measured on the 7-minute run's database (pgbench, 425 still drivers a statement, three rounds alternated):
/// 8.8 ms mean before, 7.8 ms with both changes, 7.5 ms with the trigger alone (the fillfactor shows under
/// concurrent load, where pages fill between vacuums, more than in a quiet replay).
enum M0019PositionWrites {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0019_position_writes",
        statements: [
            "ALTER TABLE driver_positions SET (fillfactor = 50)",
            "DROP TRIGGER order_events_on_position ON driver_positions",
            """
            CREATE TRIGGER order_events_on_position_insert AFTER INSERT ON driver_positions
                FOR EACH ROW EXECUTE FUNCTION order_events_on_position()
            """,
            """
            CREATE TRIGGER order_events_on_position_update AFTER UPDATE ON driver_positions
                FOR EACH ROW WHEN (OLD.lat IS DISTINCT FROM NEW.lat OR OLD.lng IS DISTINCT FROM NEW.lng)
                EXECUTE FUNCTION order_events_on_position()
            """,
        ]
    )
}
