import Foundation
import SiftTestSupport
import Testing

/// The Swift examples of the README and then of the DocC article *Getting started*, pasted in
/// order into `main.swift` of an empty package that depends on Sift, build and print what their
/// comments say: `print(…)  // output`.
@Suite("README as a package", .tags(.endToEnd))
struct ReadmePackageTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// Where the examples are, in the order a reader meets them.
  static let pages = ["README.md", "Sources/Sift/Sift.docc/GettingStarted.md"]

  @Test(
    "the Swift blocks of the README and Getting started, in order, build against Sift and print what they promise"
  )
  func readmeBuildsAndRuns() throws {
    var blocks: [String] = []
    for page in Self.pages {
      let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
      let found = Self.swiftBlocks(of: text)
      #expect(!found.isEmpty, "\(page) has Swift examples")
      blocks += found
    }
    let program = blocks.joined(separator: "\n")
    let promised = Self.promisedOutput(of: program)
    #expect(promised.count >= 10, "the examples print what they show")

    // Inside .build so git ignores it and a second run builds only what changed.
    let package = Self.root.appendingPathComponent(".build/readme-package")
    let sources = package.appendingPathComponent("Sources/ReadmeExample")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    try Self.manifest(siftPath: Self.root.path).write(
      to: package.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    try program.write(
      to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)

    // Resolved afresh, so the pins read below are this manifest's.
    try? FileManager.default.removeItem(at: package.appendingPathComponent("Package.resolved"))
    let build = try Self.swift(["build", "--package-path", package.path])
    #expect(
      build.status == 0, "swift build of the README's examples:\n\(build.output)\(build.errors)")
    guard build.status == 0 else { return }
    // An app that depends on the Sift library with `traits: []`, as the README says, resolves
    // no other package: no pins at all.
    #expect(try Self.pins(of: package) == [])
    let bin = try Self.swift(["build", "--package-path", package.path, "--show-bin-path"])
    let binary = URL(fileURLWithPath: bin.output.trimmingCharacters(in: .whitespacesAndNewlines))
      .appendingPathComponent("ReadmeExample")
    let run = try Self.run(binary, [])
    #expect(run.status == 0, "the README's examples exited with \(run.status):\n\(run.errors)")
    #expect(run.errors.isEmpty)
    let printed = run.output.split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init).dropLast()
    #expect(Array(printed) == promised)
  }

  @Test("comments are read as promised output only after a print")
  func promisedOutputReading() {
    let program = """
      let a = 1  // not output
      print(a)  // 1
      print("x // y")  // x // y
      print(a)
      """
    #expect(Self.promisedOutput(of: program) == ["1", "x // y", ""])
  }

  /// The ```swift blocks of a Markdown text, in order.
  static func swiftBlocks(of markdown: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line == "```swift" {
        current = []
      } else if current != nil, line == "```" {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  /// For each line that starts with `print(`, the comment after its last `  // ` (what it prints;
  /// an empty line when it has none).
  static func promisedOutput(of program: String) -> [String] {
    program.split(separator: "\n").compactMap { line -> String? in
      let code = line.drop { $0 == " " }
      guard code.hasPrefix("print(") else { return nil }
      guard let comment = line.range(of: "  // ", options: .backwards) else { return "" }
      return String(line[comment.upperBound...])
    }
  }

  static func manifest(siftPath: String) -> String {
    """
    // swift-tools-version: 6.1
    import PackageDescription

    let package = Package(
      name: "ReadmeExample",
      platforms: [.macOS(.v14), .iOS(.v17)],
      dependencies: [.package(name: "Sift", path: \(String(reflecting: siftPath)), traits: [])],
      targets: [
        .executableTarget(
          name: "ReadmeExample", dependencies: [.product(name: "Sift", package: "Sift")])
      ],
      swiftLanguageModes: [.v6]
    )

    """
  }

  /// The packages a resolved package pinned (its Package.resolved; none when it has none).
  static func pins(of package: URL) throws -> [String] {
    let resolved = package.appendingPathComponent("Package.resolved")
    guard FileManager.default.fileExists(atPath: resolved.path) else { return [] }
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: resolved))
    let pins = (object as? [String: Any])?["pins"] as? [[String: Any]] ?? []
    return pins.map { $0["identity"] as? String ?? "?" }
  }

  static func swift(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String)
  {
    try run(URL(fileURLWithPath: "/usr/bin/env"), ["swift"] + arguments)
  }

  /// Runs a program to its end.
  static func run(_ executable: URL, _ arguments: [String]) throws -> (
    status: Int32, output: String, errors: String
  ) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    let output = Pipe()
    process.standardOutput = output
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let collector = ErrorCollector(errors.fileHandleForReading)
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
      process.terminationStatus, String(decoding: data, as: UTF8.self),
      String(decoding: collector.finish(), as: UTF8.self)
    )
  }
}
