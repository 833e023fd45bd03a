import Foundation
import Testing
@testable import TriggerRuntime

@Suite("Generated SQL")
struct TriggerDDLTests {
    @Test("the per-table trigger DDL is pinned")
    func triggerDDL() {
        #expect(
            TriggerInstaller.triggerDDL(schema: "public", table: "orders", channel: "trigger_runtime")
                == """
                CREATE OR REPLACE TRIGGER trigger_runtime_capture AFTER INSERT OR UPDATE OR DELETE ON \
                "public"."orders" FOR EACH ROW EXECUTE FUNCTION trigger_runtime.capture('trigger_runtime')
                """
        )
        #expect(
            TriggerInstaller.triggerDDL(schema: "App", table: "we\"ird", channel: "c1")
                == """
                CREATE OR REPLACE TRIGGER trigger_runtime_capture AFTER INSERT OR UPDATE OR DELETE ON \
                "App"."we""ird" FOR EACH ROW EXECUTE FUNCTION trigger_runtime.capture('c1')
                """
        )
        #expect(
            TriggerInstaller.triggerDDL(schema: "public", table: "webhook_events", channel: "c", operations: [.create])
                == """
                CREATE OR REPLACE TRIGGER trigger_runtime_capture AFTER INSERT ON \
                "public"."webhook_events" FOR EACH ROW EXECUTE FUNCTION trigger_runtime.capture('c')
                """,
            "a table whose functions react to inserts only: its updates (an inbox row's outcome) fire nothing"
        )
        #expect(
            TriggerInstaller.triggerDDL(schema: "s", table: "t", channel: "c", operations: [.delete, .update])
                .contains("AFTER UPDATE OR DELETE ON")
        )
    }

    @Test("a value filter is one condition written twice: the function's path and the trigger's WHEN")
    func valueFilterWhen() {
        let notIn = Trigger.create("webhook_events").matching("type", notIn: ["location", "it's"])
        #expect(notIn.filter == #"$.type != "location" && $.type != "it's""#)
        #expect(
            notIn.valueFilter?.whenCondition
                == """
                ((to_jsonb(NEW."type") #>> '{}') COLLATE "C" IS NULL OR \
                (to_jsonb(NEW."type") #>> '{}') COLLATE "C" NOT IN ('location', 'it''s'))
                """
        )
        let oneOf = Trigger.update("order_legs").matching("status", in: ["completing"])
        #expect(
            oneOf.valueFilter?.whenCondition == #"((to_jsonb(NEW."status") #>> '{}') COLLATE "C" IN ('completing'))"#)
        // A path set by hand may say anything else: the WHEN it was written with goes with it.
        var edited = oneOf
        edited.filter = #"$.status == "completing" || $.other == 1"#
        #expect(edited.valueFilter == nil)
        #expect(oneOf.matching("$.status != null").valueFilter == nil)

        #expect(
            TriggerInstaller.triggerDDL(
                schema: "public", table: "webhook_events", channel: "c", operations: [.create], when: "NEW.a = 1")
                == """
                CREATE OR REPLACE TRIGGER trigger_runtime_capture AFTER INSERT ON "public"."webhook_events" \
                FOR EACH ROW WHEN (NEW.a = 1) EXECUTE FUNCTION trigger_runtime.capture('c')
                """
        )
        var table = TriggerInstaller.TableCapture(schema: "s", name: "t", operations: [.create, .update])
        table.conditions = ["b", "a", "b"]
        #expect(table.when == "a OR b", "any function's condition, each once, in a stable order")
        table.operations.insert(.delete)
        #expect(table.when == nil, "a delete's trigger has no NEW")
        table.operations = [.update]
        table.conditions = nil
        #expect(table.when == nil, "a function without a condition wants every row")
    }

    @Test("the capture function is lean: one INSERT, NOTIFY once, skips unchanged rows")
    func captureFunction() throws {
        let capture = try #require(RuntimeSchema.functions.first { $0.contains("FUNCTION trigger_runtime.capture()") })
        #expect(capture.components(separatedBy: "INSERT INTO").count == 2)
        #expect(capture.components(separatedBy: "pg_notify").count == 2)
        #expect(capture.contains("IF OLD *= NEW THEN"))
        #expect(capture.contains("pg_notify(TG_ARGV[0], '')"))
    }

    @Test("migration 0004's capture function differs only in when it notifies")
    func captureSkippingNotify() throws {
        let original = try #require(RuntimeSchema.functions.first { $0.contains("FUNCTION trigger_runtime.capture()") })
        let revised = try #require(RuntimeSchema.awake.first { $0.contains("FUNCTION trigger_runtime.capture()") })
        #expect(revised.components(separatedBy: "pg_notify").count == 2)
        #expect(revised.contains("trigger_runtime.awake_workers"))
        #expect(revised.contains("current_setting('transaction_isolation') <> 'read committed'"))
        let parts = revised.components(separatedBy: "IF FOUND AND")
        try #require(parts.count == 2)
        let (head, tail) = (parts[0], parts[1])
        #expect(original.hasPrefix(head.replacingOccurrences(of: "CREATE OR REPLACE FUNCTION", with: "CREATE FUNCTION")))
        #expect(original.hasSuffix(String(tail[tail.range(of: ") THEN")!.upperBound...])))
    }

    @Test("migration 0006's capture function is 0004's with the row filter added to its one INSERT")
    func captureWithRowFilter() throws {
        let awake = try #require(RuntimeSchema.awake.first { $0.contains("FUNCTION trigger_runtime.capture()") })
        let filtered = try #require(RuntimeSchema.rowFilters.first { $0.contains("FUNCTION trigger_runtime.capture()") })
        #expect(filtered.replacingOccurrences(of: RuntimeSchema.rowFilterCondition, with: "") == awake)
        #expect(filtered.contains("jsonb_path_match(coalesce(after_row, before_row), f.row_filter)"))
        #expect(RuntimeSchema.rowFilters.first == "ALTER TABLE trigger_runtime.functions ADD COLUMN row_filter jsonpath")
    }

    @Test("the runtime's migrations have stable names in one group")
    func migrations() {
        #expect(
            TriggerRuntime.migrations.map(\.name) == [
                "0001_create_queue", "0002_create_functions", "0003_revise_claim", "0004_skip_notify_while_awake",
                "0005_timers_and_schedules", "0006_row_filters", "0007_chain_holds",
                "0008_claim_per_function", "0009_claim_probes_chains", "0010_chain_probes",
                "0011_cached_plans", "0012_cached_plans_everywhere", "0013_indexed_plans", "0014_schedule_timer",
            ])
        #expect(Set(TriggerRuntime.migrations.map(\.group)) == ["trigger_runtime"])
    }

    @Test("channels are validated: they end up in DDL")
    func channels() throws {
        try TriggerRuntime.Configuration.validateChannel("trigger_runtime_2")
        for bad in ["", "Upper", "semi;colon", "quote'", String(repeating: "a", count: 64)] {
            #expect(throws: TriggerRuntimeError.self) { try TriggerRuntime.Configuration.validateChannel(bad) }
        }
    }
}

