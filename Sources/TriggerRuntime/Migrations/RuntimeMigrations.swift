extension TriggerRuntime {
    /// The migration group of the runtime's own schema.
    public static let migrationGroup = "trigger_runtime"

    /// The runtime's own migrations (schema `trigger_runtime`): the delivery queue, the done log, the function
    /// bindings, the workers that claim on a schedule, timers and schedules, and the `capture()`, `claim()`,
    /// `promote_timers()` and `schedule_timer()` functions. Pass them to
    /// `Migrator` before the application's.
    public static var migrations: [Migration] {
        [
            Migration(group: migrationGroup, name: "0001_create_queue", statements: RuntimeSchema.queue),
            Migration(group: migrationGroup, name: "0002_create_functions", statements: RuntimeSchema.functions),
            Migration(group: migrationGroup, name: "0003_revise_claim", statements: RuntimeSchema.claimRevised),
            Migration(group: migrationGroup, name: "0004_skip_notify_while_awake", statements: RuntimeSchema.awake),
            Migration(group: migrationGroup, name: "0005_timers_and_schedules", statements: RuntimeSchema.timers),
            Migration(group: migrationGroup, name: "0006_row_filters", statements: RuntimeSchema.rowFilters),
            Migration(group: migrationGroup, name: "0007_chain_holds", statements: RuntimeSchema.chainHolds),
            Migration(group: migrationGroup, name: "0008_claim_per_function", statements: RuntimeSchema.claimPerFunction),
            Migration(group: migrationGroup, name: "0009_claim_probes_chains", statements: RuntimeSchema.probingChains),
            Migration(group: migrationGroup, name: "0010_chain_probes", statements: RuntimeSchema.chainProbes),
            Migration(group: migrationGroup, name: "0011_cached_plans", statements: RuntimeSchema.cachedPlans),
            Migration(
                group: migrationGroup,
                name: "0012_cached_plans_everywhere",
                statements: RuntimeSchema.cachedPlansEverywhere
            ),
            Migration(group: migrationGroup, name: "0013_indexed_plans", statements: RuntimeSchema.indexedPlans),
            Migration(group: migrationGroup, name: "0014_schedule_timer", statements: RuntimeSchema.scheduleTimer),
        ]
    }
}
