import TriggerRuntime

/// The API's read of an order's view (`GET /v1/orders/{id}`, the share page, and until the 53rd session the reply of
/// every booking and ride action, which now answer from their writes: ``StoreStatements``' `withView`) as a function
/// whose statement keeps its generic plan.
///
/// **Why.** The read was a statement prepared once per connection (``PreparedStatements``), which PostgreSQL plans
/// anew at every call while its plan cache prefers custom plans. In one of the 37th session's 4,000-ride cities (P1)
/// the API's connections planned it at 97% of its calls from 200 s on (14,264 plans of 18,512 calls by 240 s, 0.61 ms
/// each: 7.3 s of planning where it ran for 4.1 s), while in the next run (H1, a build with the same statement) they
/// had settled on the generic plan; a fresh session on either database chose the generic plan after five calls, at
/// the same cost as the custom ones (an index lookup by the order's key, a hashed subplan of the caller's offers, the
/// legs by the order). The likely mechanism (not traced): the cache weighs the custom plans against the generic
/// plan's cost as estimated when that plan was made, and does not estimate it again while custom plans look cheaper,
/// so which way a connection goes depends on what the tables held when it first read a view. The same as
/// ``M0024CachedPlans`` did for `nearest_dispatchable_drivers`: `plan_cache_mode = force_generic_plan` on the
/// function settles it.
///
/// `p_caller` `NULL` is the share page's read (whoever asks: the page checked its token). The columns are
/// ``PreparedStatements/orderViewColumns``' (`OrderViewPlanTests` reads both ways and compares). Additive, for a
/// rolling upgrade: the previous release keeps its own statement.
enum M0033OrderViewPlans {
    static let migration = Migration(
        group: AppMigrations.group,
        name: "0033_order_view_plans",
        statements: [
            """
            CREATE FUNCTION order_view_documents(p_order uuid, p_caller uuid)
            RETURNS TABLE (order_document text, driver_document text, legs_document text)
            LANGUAGE plpgsql STABLE
            SET plan_cache_mode = force_generic_plan
            AS $$
            BEGIN
                RETURN QUERY
                SELECT to_jsonb(o)::text,
                    CASE WHEN d.id IS NULL THEN NULL ELSE to_jsonb(d)::text END,
                    coalesce((SELECT jsonb_agg(to_jsonb(l) ORDER BY l.leg DESC)
                              FROM order_legs l WHERE l.order_id = o.id), '[]'::jsonb)::text
                FROM orders o LEFT JOIN users d ON d.id = o.driver_id
                WHERE o.id = p_order AND (p_caller IS NULL OR o.rider_id = p_caller OR o.driver_id = p_caller
                    OR (o.status = 'NEW' AND EXISTS (
                        SELECT 1 FROM order_offers f WHERE f.order_id = o.id AND f.driver_id = p_caller)));
            END
            $$
            """
        ]
    )
}
