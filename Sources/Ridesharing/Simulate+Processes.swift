import ArgumentParser
import LocalStack

extension CitySimulation.OfferChannel: ExpressibleByArgument {}

extension Simulate {
    /// `--process name=pid` flags, or the local stack's one process (`stack`) when none is given and stack.json
    /// names it.
    func measuredProcesses(default stackPID: Int32?) throws -> [MeasuredProcess] {
        if self.processes.isEmpty { return stackPID.map { [MeasuredProcess(name: "stack", pid: $0)] } ?? [] }
        return try self.processes.map { flag in
            let parts = flag.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let pid = Int32(parts[1]), pid > 0 else {
                throw ValidationError("--process must be name=pid, e.g. api=1234 (got \(flag))")
            }
            return MeasuredProcess(name: parts[0], pid: pid)
        }
    }
}
