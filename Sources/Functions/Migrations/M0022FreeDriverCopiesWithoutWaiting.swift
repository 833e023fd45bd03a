import TriggerRuntime

/// ``M0021FreeDriverIndex``'s copies are written without waiting when they only narrow the index (a driver taking a
/// ride, going offline or stopping tracking); they still wait when they widen it (a ride ending, a driver coming
/// online).
///
/// **Why.** The intake holds the position rows of a delivery's drivers (about 440 of 10,000 in the 4,000-ride
/// simulation) from its upsert to its commit, 100-200 ms under load, one delivery after another. 0021's triggers
/// wrote the driver's position row from the accept's and the availability change's transactions, which then waited
/// for the intake: in three 4,000-ride runs alternated with two of the code before 0021, an accept's `UPDATE`
/// took 3.6 ms instead of 1.1 ms (`pg_stat_statements`), availability changes 3.6 ms instead of 1.1 ms, the rides
/// fell behind (completed 233 s into the rides: 20, 421, 218 against 765, 533), and one run collapsed (accepts
/// 3 s at the median).
///
/// A copy saying "not free" is only an optimisation: the walk rechecks every driver it meets. So the narrowing
/// writes take the row with `SKIP LOCKED` and give up when a delivery holds it; the copy then keeps saying "free"
/// until the driver's next change, and costs the walk one skipped row, as every busy driver did before 0021. The
/// widening writes must land (a copy wrongly saying "not free" hides the driver), so they wait as before; a ride's
/// end and a driver coming online are a few thousand a run, not the accepts' tens of thousands.
enum M0022FreeDriverCopiesWithoutWaiting {
    static let active = M0021FreeDriverIndex.active

    static let migration = Migration(
        group: AppMigrations.group,
        name: "0022_free_driver_copies_without_waiting",
        statements: [
            """
            CREATE OR REPLACE FUNCTION driver_positions_online_from_user() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.role = 'driver' AND NEW.available
                   AND (NEW.device_status IS NULL OR NEW.device_status = 'active') THEN
                    UPDATE driver_positions SET online = true WHERE driver_id = NEW.id AND NOT online;
                ELSE
                    UPDATE driver_positions SET online = false
                    WHERE driver_id = (
                        SELECT p.driver_id FROM driver_positions p WHERE p.driver_id = NEW.id AND p.online
                        FOR NO KEY UPDATE SKIP LOCKED);
                END IF;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION driver_positions_busy_from_order() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF OLD.driver_id IS NOT NULL AND OLD.\(active) THEN
                    UPDATE driver_positions SET busy = false WHERE driver_id = OLD.driver_id AND busy;
                END IF;
                IF TG_OP = 'UPDATE' AND NEW.driver_id IS NOT NULL AND NEW.\(active) THEN
                    UPDATE driver_positions SET busy = true
                    WHERE driver_id = (
                        SELECT p.driver_id FROM driver_positions p WHERE p.driver_id = NEW.driver_id AND NOT p.busy
                        FOR NO KEY UPDATE SKIP LOCKED);
                END IF;
                RETURN NULL;
            END
            $$
            """,
        ]
    )
}
