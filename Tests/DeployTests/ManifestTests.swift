import Foundation
import Testing

@testable import Ridesharing

/// The deployment artifacts validate with the tools that consume them. A check is skipped (with a message saying
/// which tool is missing) only when that tool is not installed.
@Suite("Deploy: manifests and unit file")
struct ManifestTests {
    static let root = ChildProcess.packageRoot

    static func tool(_ name: String) -> String? {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        return nil
    }

    /// Runs `executable arguments`; returns (status, stdout, stderr).
    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // Both pipes at once: a tool that fills one while we wait on the other would block forever.
        nonisolated(unsafe) var errors = Data()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { errors = err.fileHandleForReading.readDataToEndOfFile() }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        exited.wait()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }

    @Test("kubectl kustomize deploy/k8s: Job, workers ≥ 2 with probes and grace > shutdown grace, API Service, PDB",
          .enabled(if: tool("kubectl") != nil, "kubectl is not installed"))
    func kustomize() throws {
        let (status, output, errors) = try Self.run(try #require(Self.tool("kubectl")), ["kustomize", Self.root.appendingPathComponent("deploy/k8s").path])
        try #require(status == 0, "kubectl kustomize failed: \(errors)")
        let documents = try KubeDocuments(output)
        let config = try #require(documents.first(kind: "ConfigMap"))
        let data = config.map("data")
        let grace = try #require(Int(data.string("WORKER_SHUTDOWN_GRACE_SECONDS") ?? ""))
        // Only variables the executable reads.
        for key in data.keys {
            #expect(Setting.environmentNames.contains(key), "unknown variable \(key) in the ConfigMap")
        }

        let job = try #require(documents.first(kind: "Job"))
        #expect(job.container.strings("args") == ["migrate"])

        let worker = try #require(documents.first(kind: "Deployment", name: "ridesharing-worker"))
        #expect((worker.map("spec").int("replicas") ?? 0) >= 2)
        #expect(worker.container.strings("args") == ["serve", "--worker-only"])
        let api = try #require(documents.first(kind: "Deployment", name: "ridesharing-api"))
        #expect(api.container.strings("args") == ["serve", "--api-only"])
        for deployment in [worker, api] {
            let pod = deployment.map("spec").map("template").map("spec")
            #expect((pod.int("terminationGracePeriodSeconds") ?? 0) > grace)
            #expect(deployment.container.map("livenessProbe").map("httpGet").string("path") == "/healthz")
            #expect(deployment.container.map("readinessProbe").map("httpGet").string("path") == "/readyz")
            #expect(deployment.container.map("resources").map("requests").string("memory") != nil)
        }
        // Room for 10,000 drivers' event streams (230-260 MiB resident in sse-bench and the city, BENCHMARKS.md).
        #expect(api.container.map("resources").map("limits").string("memory") == "512Mi")
        let service = try #require(documents.first(kind: "Service", name: "ridesharing-api"))
        #expect(service.map("spec").map("selector").string("app.kubernetes.io/name") == "ridesharing-api")
        let budgets = documents.all(kind: "PodDisruptionBudget")
        #expect(budgets.contains { $0.map("spec").map("selector").map("matchLabels").string("app.kubernetes.io/name") == "ridesharing-worker" })
    }

    @Test("systemd-analyze verify accepts the unit (paths rewritten to a temporary root holding the built binary)",
          .enabled(if: tool("systemd-analyze") != nil, "systemd-analyze is not installed"))
    func systemdUnit() throws {
        let binary = try ChildProcess.locate("ridesharing")
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("deploy-unit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let bin = temporary.appendingPathComponent("usr/local/bin")
        let etc = temporary.appendingPathComponent("etc/ridesharing")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("ridesharing"), withDestinationURL: binary)
        try FileManager.default.copyItem(
            at: Self.root.appendingPathComponent("deploy/systemd/ridesharing.env"),
            to: etc.appendingPathComponent("ridesharing.env")
        )
        let unit = try String(contentsOf: Self.root.appendingPathComponent("deploy/systemd/ridesharing.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/ridesharing serve"))
        let grace = try #require(unit.split(separator: "\n").first { $0.hasPrefix("TimeoutStopSec=") }.flatMap { Int($0.dropFirst(15)) })
        #expect(grace > 20, "TimeoutStopSec must exceed WORKER_SHUTDOWN_GRACE_SECONDS (20)")
        let rewritten = unit
            .replacingOccurrences(of: "/usr/local/bin/", with: bin.path + "/")
            .replacingOccurrences(of: "/etc/ridesharing/", with: etc.path + "/")
        let file = temporary.appendingPathComponent("ridesharing.service")
        try rewritten.write(to: file, atomically: true, encoding: .utf8)
        let (status, output, errors) = try Self.run(try #require(Self.tool("systemd-analyze")), ["verify", "--man=no", file.path])
        #expect(status == 0, "systemd-analyze verify: \(output) \(errors)")
        #expect(!errors.contains("ridesharing.service:"), "warnings about the unit: \(errors)")
    }
}
