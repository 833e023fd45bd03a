import EmbeddedPostgres
import Foundation
import Testing

@testable import LocalStack

/// The simulation's pure parts: the event-stream parser its drivers read offers with, the quantiles of its report,
/// the pending-deliveries plot and the `/proc` parsing of its resource samples.
@Suite("Simulation measurements: stream parsing, quantiles, plot, /proc")
struct SimulationMeasurementTests {
    @Test("frames split across chunks come out whole, with name, id, joined data and comments")
    func parsesServerSentEvents() {
        var parser = ServerSentEvent.Parser()
        #expect(
            parser.feed(": connected\n\nevent: offer.new\nid: 4") == [ServerSentEvent(data: "", comment: "connected")]
        )
        let events = parser.feed("2\ndata: {\"order\":\r\ndata: 1}\r\n\r\n: heartbeat\n\nevent: x\n")
        #expect(
            events == [
                ServerSentEvent(name: "offer.new", id: "42", data: "{\"order\":\n1}"),
                ServerSentEvent(data: "", comment: "heartbeat"),
            ]
        )
        #expect(parser.feed("data:no space\n\n") == [ServerSentEvent(name: "x", data: "no space")])
        #expect(parser.feed("\n\n").isEmpty, "an empty frame is no event")
    }

    @Test("bytes split anywhere (inside a character, between \\r and \\n) give the events of the whole body")
    func parsesSplitBytes() {
        let body = Array("id: 1\r\ndata: Zürich ✓\r\n\r\n: heartbeat\n\nevent: e\ndata: a\ndata: b\n\n".utf8)
        var whole = ServerSentEvent.Parser()
        let expected = whole.feed(bytes: body)
        #expect(
            expected == [
                ServerSentEvent(id: "1", data: "Zürich ✓"), ServerSentEvent(data: "", comment: "heartbeat"),
                ServerSentEvent(name: "e", data: "a\nb"),
            ]
        )
        for cut in 1..<body.count {
            var parser = ServerSentEvent.Parser()
            let events = parser.feed(bytes: body[..<cut]) + parser.feed(bytes: body[cut...])
            #expect(events == expected, "cut at \(cut)")
        }
        var one = ServerSentEvent.Parser()
        let many = one.feed(bytes: Array(String(repeating: "id: 7\ndata: x\n\n", count: 5_000).utf8))
        #expect(many.count == 5_000 && many.allSatisfy { $0 == ServerSentEvent(id: "7", data: "x") })
    }

    @Test("a driver's app shows an offer until its expires_at or its offer.closed; an offer without an order is none")
    func offerOnTheApp() throws {
        func event(expiring expiry: Date) -> ServerSentEvent {
            // The API's rendering: JSONEncoder's .iso8601, whole seconds (OrderEventRenderer.encoder).
            let stamp = expiry.formatted(.iso8601)
            let data = #"{"expires_at":"\#(stamp)","order":{"id":"o-1"}}"#
            return ServerSentEvent(name: "offer.new", id: "7", data: data)
        }
        let closed = CitySimulation.ClosedOffers()
        let open = try CitySimulation.Offer(event(expiring: Date() + 60))
        #expect(open.orderID == "o-1")
        #expect(open.gone(closed: closed) == nil)
        let expired = try CitySimulation.Offer(event(expiring: Date() - 1))
        #expect(expired.gone(closed: closed) == "expired on the app")
        closed.insert("o-1", reason: "taken")
        #expect(open.gone(closed: closed) == "taken", "gone once the server closed it, for the server's reason")
        #expect(throws: DecodingError.self) {
            try CitySimulation.Offer(ServerSentEvent(name: "offer.new", data: #"{"order":{}}"#))
        }
    }

    @Test("quantiles are nearest-rank: p50 of 1...100 is 50, p99 is 99, max 100; none is no samples")
    func percentiles() {
        let p = Percentiles((1...100).map(Double.init).shuffled())
        #expect(p.count == 100)
        #expect(p.p50 == 50)
        #expect(p.p99 == 99)
        #expect(p.max == 100)
        let one = Percentiles([7])
        #expect(one.p50 == 7 && one.p99 == 7 && one.max == 7)
        #expect(Percentiles([]).text == "no samples")
    }

    @Test("errors are counted by kind: ids and numbers masked, so one failure by the thousand is one line")
    func errorKinds() {
        let recorder = SimulationRecorder()
        recorder.error("GET /v1/orders/{id}: 503 {\"detail\":\"pool 12 of 40 busy\"}")
        recorder.error("GET /v1/orders/{id}: 503 {\"detail\":\"pool 40 of 40 busy\"}")
        recorder.error("start 9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d: 500 {}")
        recorder.error("start ab1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d: 500 {}")
        recorder.bookingFailed("booking 17: HTTPClientError.deadlineExceeded")
        let state = recorder.snapshot
        #expect(state.errors == 5)
        #expect(state.bookingsFailed == 1)
        #expect(
            state.errorKinds == [
                "GET /v1/orders/{id}: # {\"detail\":\"pool # of # busy\"}": 2,
                "start #: # {}": 2,
                "booking #: HTTPClientError.deadlineExceeded": 1,
            ]
        )
        #expect(SimulationRecorder.kind(of: String(repeating: "x", count: 500)).count == 160)
        let line = CitySimulation.newErrors(
            now: ["a": 5, "b": 1, "c": 7, "d": 2, "e": 1],
            before: ["a": 5, "b": 0, "c": 3]
        )
        #expect(line == "        new errors: 4 × c; 2 × d; 1 × b; 1 other kinds")
        #expect(CitySimulation.newErrors(now: ["a": 5], before: ["a": 5]) == nil)
    }

    @Test("the plot is SVG whose line runs from the first sample to the last, scaled to the axes, title escaped")
    func plot() throws {
        let svg = PendingPlot.svg(
            [.init(seconds: 0, pending: 0), .init(seconds: 5, pending: 40), .init(seconds: 10, pending: 20)],
            title: "a < b & c",
            width: 200,
            height: 100
        )
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("a &lt; b &amp; c"))
        #expect(!svg.contains("a < b"))
        // Plot area: x from 56 to 184 (200 - 56 - 16 = 128 wide), y from 28 to 64 (100 - 28 - 36 = 36 high).
        #expect(svg.contains("points=\"56.0,64.0 120.0,28.0 184.0,46.0\""))
        #expect(svg.contains(">40</text>"), "the y axis is labelled with the maximum")
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.components(separatedBy: "<polyline").count == 2, "one line")
    }

    @Test("an empty series still draws a valid, empty plot")
    func emptyPlot() {
        let svg = PendingPlot.svg([], title: "nothing")
        #expect(svg.contains("points=\"\""))
        #expect(svg.hasSuffix("</svg>\n"))
    }

    @Test("/proc parsing: VmRSS in KiB; utime + stime after the command name, even one with spaces and parentheses")
    func procParsing() throws {
        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmRSS:\t   12345 kB\nThreads:\t4\n"
        let stat = "4242 (a (weird) name) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 150 0 0 20 0 4 0 1 2 3"
        let usage = try ProcessUsage.parse(status: status, stat: stat, ticksPerSecond: 100)
        #expect(usage == ProcessUsage(residentKiB: 12345, cpuSeconds: 4))
        #expect(throws: LocalStackError.self) {
            try ProcessUsage.parse(status: "Name: x\n", stat: stat, ticksPerSecond: 100)
        }
        #expect(throws: LocalStackError.self) {
            try ProcessUsage.parse(status: status, stat: "1 (x) S 1", ticksPerSecond: 100)
        }
    }

    @Test("/proc/stat: the machine's busy, idle and stolen ticks, its CPUs, and the report's shares between two reads")
    func machineUsage() throws {
        // user nice system idle iowait irq softirq steal guest guest_nice: guest is within user, not added again.
        let first = try MachineUsage.parse(
            "cpu  600 0 100 250 50 0 100 200 40 0\ncpu0 300 0 50 125 25 0 50 100 20 0\n"
                + "cpu1 300 0 50 125 25 0 50 100 20 0\nintr 1 2 3\nctxt 99\n"
        )
        #expect(first == MachineUsage(busy: 800, idle: 300, stolen: 200, cpus: 2))
        let last = MachineUsage(busy: 1400, idle: 400, stolen: 500, cpus: 2)
        #expect(
            MachineUsage.text(from: first, to: last)
                == "Machine (2 CPUs, `/proc/stat`): busy 60%, idle 10%, stolen by the hypervisor 30% of their time"
        )
        #expect(MachineUsage.text(from: last, to: last).contains("no CPU time"))
        #expect(throws: LocalStackError.self) { try MachineUsage.parse("intr 1 2 3\n") }
        #expect(throws: LocalStackError.self) { try MachineUsage.parse("cpu  1 2 3\n") }
        // This machine's, read twice: its CPUs are counted and its time only grows.
        let now = try MachineUsage.read()
        #expect(now.cpus == Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), "one cpuN line per online CPU")
        #expect(try MachineUsage.read().total >= now.total)
        // The sampler's state: no reading says why; readings give the line.
        var state = SimulationSampler.State()
        state.machineFailure = "no /proc"
        #expect(state.machineText == "Machine: not measured (no /proc)")
        state.record(first)
        state.record(last)
        #expect(state.machineTicks == 1000)
        #expect(state.machineText.hasSuffix("stolen by the hypervisor 30% of their time"))
    }

    @Test("a process tree's CPU: the stat fields by number (ppid, utime, stime, cutime, cstime), and a busy child's")
    func processTree() async throws {
        let stat = "4242 (a (weird) name) S 17 4242 4242 0 -1 4194304 100 0 0 0 250 150 30 20 20 0 4 0 1 2 3"
        #expect(ProcessUsage.fields(stat, 1, 11, 12, 13, 14) == [17, 250, 150, 30, 20])
        #expect(ProcessUsage.fields(stat, 99).isEmpty)
        // A child that spins for a while: its CPU shows in the tree's count once it has run (the parent's own
        // count cannot include it), and after it is waited for (through cutime).
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"]
        let before = try ProcessUsage.readTree(pid: getpid()).cpuSeconds - ProcessUsage.read(pid: getpid()).cpuSeconds
        // ProcessExit, not waitUntilExit(): that blocks one of the cooperative pool's two threads here (and was
        // seen never to return while other tests spawned processes).
        let exit = ProcessExit(observing: child)
        try child.run()
        #expect(try await exit.status(timeout: .seconds(60), "the spinning shell") == 0)
        let after = try ProcessUsage.readTree(pid: getpid()).cpuSeconds - ProcessUsage.read(pid: getpid()).cpuSeconds
        #expect(after > before, "children's CPU \(before) s → \(after) s")
    }

    @Test("this process's own usage reads from /proc")
    func ownUsage() throws {
        let usage = try ProcessUsage.read(pid: getpid())
        #expect(usage.residentKiB > 1000)
        #expect(usage.cpuSeconds > 0)
    }

    @Test("a watched process's report: memory, CPU per wall second over restarts; an unreadable one says why")
    func processReport() {
        let start = ContinuousClock.now
        var state = SimulationSampler.State()
        let api = MeasuredProcess(name: "api", pid: 1)
        state.record(api, ProcessUsage(residentKiB: 1024, cpuSeconds: 1), at: start)
        state.record(api, ProcessUsage(residentKiB: 4096, cpuSeconds: 2), at: start + .seconds(2))
        state.record(api, ProcessUsage(residentKiB: 2048, cpuSeconds: 3), at: start + .seconds(4))
        // A worker killed after 2 s (1 CPU second in its first incarnation) and started again as pid 7, whose
        // counters start from 0.5 and reach 1.5: 2 CPU seconds in 4 s.
        state.record(MeasuredProcess(name: "worker", pid: 2), ProcessUsage(residentKiB: 1024, cpuSeconds: 4), at: start)
        state.record(
            MeasuredProcess(name: "worker", pid: 2), ProcessUsage(residentKiB: 1024, cpuSeconds: 5),
            at: start + .seconds(2))
        state.record(
            MeasuredProcess(name: "worker", pid: 7), ProcessUsage(residentKiB: 1024, cpuSeconds: 0.5),
            at: start + .seconds(3))
        state.record(
            MeasuredProcess(name: "worker", pid: 7), ProcessUsage(residentKiB: 1024, cpuSeconds: 1.5),
            at: start + .seconds(4))
        state.failures["gone"] = "pid 1: no such file"
        let reports = ProcessReport.reports(state)
        #expect(reports.map(\.name) == ["api", "worker", "gone"])
        #expect(reports[0].text == "api: RSS 1 MiB at the start, 2 MiB at the end, peak 4 MiB; CPU 50% of a core")
        #expect(reports[1].text == "worker: RSS 1 MiB at the start, 1 MiB at the end, peak 1 MiB; CPU 50% of a core")
        #expect(reports[2].text == "gone: not measured (pid 1: no such file)")
    }

    @Test("the API's webhook timings: the route's 202s, the stages and the event hub's read off /metrics, added up over a restart")
    func apiWebhookTimes() {
        /// The hub's `sequence` stage counts twice the `decode` stage's.
        func exposition(route: [Int], decode: [Int], other: Int) -> String {
            let route202 = #"http_route="/v1/hypertrack/webhooks/{secret}",http_request_method="POST",http_response_status_code="202""#
            let routeOther = #"http_route="/v1/orders",http_request_method="POST",http_response_status_code="201""#
            let routeRefused = #"http_route="/v1/hypertrack/webhooks/{secret}",http_request_method="POST",http_response_status_code="401""#
            return zip(["0.025", "0.05", "+Inf"], route).map { "http_server_request_duration_bucket{\(route202),le=\"\($0)\"} \($1)" }
                .joined(separator: "\n") + "\n"
                + "http_server_request_duration_bucket{\(routeOther),le=\"+Inf\"} \(other)\n"
                + "http_server_request_duration_bucket{\(routeRefused),le=\"+Inf\"} \(other)\n"
                + "http_server_request_duration_sum{\(route202)} 1.5\n# TYPE webhook_intake_duration histogram\n"
                + zip(["0.01", "0.05", "+Inf"], decode).map { "webhook_intake_duration_bucket{stage=\"decode\",le=\"\($0)\"} \($1)" }
                .joined(separator: "\n") + "\n# TYPE order_events_hub_duration histogram\n"
                + zip(["0.01", "0.05", "+Inf"], decode.map { $0 * 2 }).map { "order_events_hub_duration_bucket{stage=\"sequence\",le=\"\($0)\"} \($1)" }
                .joined(separator: "\n")
        }
        let first = APIWebhookTimes.Reading.parse(exposition(route: [8, 9, 10], decode: [5, 9, 10], other: 3))
        #expect(first.route.counts == [0.025: 8, 0.05: 9, .infinity: 10], "only the webhook route's 202s")
        #expect(first.stages["decode"]?.counts == [0.01: 5, 0.05: 9, .infinity: 10])
        #expect(first.stages["sequence"] == nil, "the hub's stages are its own")
        #expect(first.hub["sequence"]?.counts == [0.01: 10, 0.05: 18, .infinity: 20])
        var increase = APIWebhookTimes.Reading()
        // 90 more deliveries, then the API restarted and counted 4 from zero.
        let second = APIWebhookTimes.Reading.parse(exposition(route: [98, 99, 100], decode: [50, 99, 100], other: 7))
        let restarted = APIWebhookTimes.Reading.parse(exposition(route: [2, 4, 4], decode: [4, 4, 4], other: 0))
        increase.add(from: first, to: second)
        increase.add(from: second, to: restarted)
        #expect(increase.route.counts == [0.025: 92, 0.05: 94, .infinity: 94])
        #expect(increase.route.share(within: 0.05) == 1)
        #expect(increase.route.share(within: 0.025) == 92.0 / 94)
        #expect(increase.route.share(within: 0.01) == nil, "no such bucket")
        #expect(increase.stages["decode"]?.counts == [0.01: 49, 0.05: 94, .infinity: 94])
        #expect(increase.hub["sequence"]?.counts == [0.01: 98, 0.05: 188, .infinity: 188])
        #expect(APIWebhookTimes.Reading.parse("").route.total == 0)
    }
}
