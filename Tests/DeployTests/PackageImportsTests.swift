import Foundation
import Testing

/// Package.swift declares exactly what each target imports: every imported module is a declared dependency (a
/// product or a target of ours), and every declared dependency is imported somewhere in the target. An import that
/// only works because another dependency happens to bring the module along breaks when that dependency changes.
@Suite("Package: every import is declared, every declared dependency is imported")
struct PackageImportsTests {
    /// Modules of the toolchain, not of a package.
    static let toolchainModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationXML", "Synchronization", "Testing", "XCTest", "Dispatch",
        "Glibc", "Musl",
        "_Concurrency", "PackageDescription",
    ]

    struct Target {
        var name: String
        var path: String
        var dependencies: Set<String>
    }

    /// The targets of Package.swift with their folders and the names their dependency lists mention (target
    /// names and product names).
    static func targets() throws -> [Target] {
        let text = try String(
            contentsOf: ChildProcess.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8
        )
        let starts = try Regex(#"\.(target|executableTarget|testTarget)\("#)
        let quoted = try Regex(#""([^"]+)""#)
        let ranges = text.ranges(of: starts)
        return try ranges.enumerated().map { index, range in
            let end = index + 1 < ranges.count ? ranges[index + 1].lowerBound : text.endIndex
            let block = String(text[range.lowerBound..<end])
            let kind = block.hasPrefix(".testTarget") ? "Tests" : "Sources"
            guard let nameMatch = block.firstMatch(of: try Regex(#"name: "([^"]+)""#)),
                let name = nameMatch.output[1].substring.map(String.init)
            else { throw ChildProcess.Failure(description: "a target without a name in Package.swift") }
            let path = block.firstMatch(of: try Regex(#"path: "([^"]+)""#))?.output[1].substring.map(String.init)
            var dependencies: Set<String> = []
            if let list = block.range(of: "dependencies: [") {
                let tail = block[list.upperBound...]
                let closing = tail.firstIndex(of: "]") ?? tail.endIndex
                for match in tail[..<closing].matches(of: quoted) {
                    if let value = match.output[1].substring { dependencies.insert(String(value)) }
                }
            }
            return Target(name: name, path: path ?? "\(kind)/\(name)", dependencies: dependencies)
        }
    }

    /// The modules the Swift files under `path` import.
    static func imports(under path: String) throws -> Set<String> {
        let root = ChildProcess.packageRoot.appendingPathComponent(path)
        let pattern = try Regex(#"^(?:@\w+(?:\([^)]*\))? )*(?:public |package |internal |private )?import (?:struct |class |enum |func |protocol )?([A-Za-z_][A-Za-z0-9_]*)"#)
            .anchorsMatchLineEndings()
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            throw ChildProcess.Failure(description: "cannot list \(path)")
        }
        var modules: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let source = try String(contentsOf: file, encoding: .utf8)
            for match in source.matches(of: pattern) {
                if let module = match.output[1].substring { modules.insert(String(module)) }
            }
        }
        return modules.subtracting(Self.toolchainModules)
    }

    @Test("every imported module is declared by its target")
    func importsAreDeclared() throws {
        let targets = try Self.targets()
        #expect(targets.count > 10, "Package.swift's targets were not found")
        for target in targets {
            let undeclared = try Self.imports(under: target.path).subtracting(target.dependencies)
            #expect(undeclared.isEmpty, "\(target.name) imports \(undeclared.sorted()) without declaring them")
        }
    }

    @Test("every declared product or target is imported by its target")
    func declaredAreImported() throws {
        let targets = try Self.targets()
        // Package names (`package: "swift-nio"`) are in the lists too; they are not modules.
        let packages = try String(
            contentsOf: ChildProcess.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8
        ).matches(of: try Regex(#"package: "([^"]+)""#)).compactMap { $0.output[1].substring.map(String.init) }
        for target in targets {
            let imported = try Self.imports(under: target.path)
            let unused = target.dependencies.subtracting(packages).subtracting(imported)
            #expect(unused.isEmpty, "\(target.name) declares \(unused.sorted()) but imports none of them")
        }
    }
}
