extension RuntimeSchema {
    /// Migration 0015: a worker's claim of every priority tier is one statement, `trigger_runtime.claim_tiers()`,
    /// which calls `claim()` for each tier by the rule ``OutboxStore/claimTierByTier(limit:tiers:owner:lease:)``
    /// states (the in-memory store's; a test checks that both take the same from each tier).
    ///
    /// **Why.** A worker with functions of three priority tiers (the backend's: offers high, arrivals elevated, the
    /// rest normal) claimed with a statement per tier, each on a connection leased from the pool for it: in the 57th
    /// session's ten-minute city (R3) 175,026 claims in 757 s, PostgreSQL's third-busiest statement (58.5 s), three
    /// round trips and three leases for every claim the worker made, each of the worker's awaits resuming behind its
    /// lanes' work. One statement is one round trip and one lease; what each tier's `claim()` does is unchanged, and
    /// the tiers' claims now share one transaction (each took its own: a claim's leases commit when it ends either
    /// way, and its rows are locked `SKIP LOCKED` by others meanwhile).
    static let claimTiers: [String] = [
        """
        CREATE FUNCTION trigger_runtime.claim_tiers(
            p_functions text[], p_tiers integer[], p_limit integer, p_owner text, p_lease_seconds double precision)
        RETURNS SETOF trigger_runtime.deliveries
        LANGUAGE plpgsql
        AS $$
        DECLARE
            tiers integer[];
            full_tiers integer[] := '{}';
            tier_count integer;
            claimed integer := 0;
            room integer;
            asked integer;
            got integer;
            tier integer;
        BEGIN
            SELECT array_agg(DISTINCT t ORDER BY t) INTO tiers FROM unnest(p_tiers) AS t;
            tier_count := coalesce(cardinality(tiers), 0);
            FOR i IN 1..tier_count LOOP
                EXIT WHEN claimed >= p_limit;
                room := p_limit - claimed;
                -- A quarter of the room left is kept for the later tiers; a room of one is theirs.
                asked := CASE WHEN i = tier_count THEN room ELSE room - greatest(1, room / 4) END;
                IF asked <= 0 THEN
                    full_tiers := full_tiers || tiers[i];
                    CONTINUE;
                END IF;
                RETURN QUERY SELECT * FROM trigger_runtime.claim(
                    ARRAY(SELECT u.f FROM unnest(p_functions, p_tiers) AS u(f, t) WHERE u.t = tiers[i]),
                    asked, p_owner, p_lease_seconds);
                GET DIAGNOSTICS got = ROW_COUNT;
                claimed := claimed + got;
                IF got = asked AND i < tier_count THEN full_tiers := full_tiers || tiers[i]; END IF;
            END LOOP;
            -- A tier whose claim was full takes what the later tiers left unused.
            FOREACH tier IN ARRAY full_tiers LOOP
                EXIT WHEN claimed >= p_limit;
                RETURN QUERY SELECT * FROM trigger_runtime.claim(
                    ARRAY(SELECT u.f FROM unnest(p_functions, p_tiers) AS u(f, t) WHERE u.t = tier),
                    p_limit - claimed, p_owner, p_lease_seconds);
                GET DIAGNOSTICS got = ROW_COUNT;
                claimed := claimed + got;
            END LOOP;
        END
        $$
        """
    ]
}
