import Foundation
import Testing

/// Runs the built `sift` binary, as a user would.
@Suite("sift command line")
struct CommandLineTests {
  struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// The build's products folder holds the test runner and the `sift` executable side by side
  /// (`SIFT_BINARY` names another one).
  static var binary: URL {
    if let explicit = ProcessInfo.processInfo.environment["SIFT_BINARY"], !explicit.isEmpty {
      return URL(fileURLWithPath: explicit)
    }
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // On macOS the runner sits inside Foo.xctest/Contents/MacOS.
    while folder.path.contains(".xctest") { folder.deleteLastPathComponent() }
    return folder.appendingPathComponent("sift")
  }

  static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.merge(environment) { $1 }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
      stderr: String(decoding: stderr, as: UTF8.self))
  }

  @Test func binaryExists() {
    #expect(FileManager.default.isExecutableFile(atPath: Self.binary.path), "\(Self.binary.path)")
  }

  @Test("with no arguments it describes the products catalog")
  func defaultCatalog() throws {
    let run = try Self.run([])
    #expect(run.status == 0)
    #expect(run.stdout.contains("Sift — Products: 15 items"))
    #expect(run.stdout.contains("Scopes: All | Birthdays | Weddings | Funerals"))
  }

  @Test("an unknown catalog is a usage error that names it")
  func unknownCatalog() throws {
    let run = try Self.run(["--catalog", "sweets"])
    #expect(run.status == 2)
    #expect(run.stderr.contains("unknown catalog \"sweets\""))
    #expect(run.stderr.contains("products, candies, media, meals"))
  }

  @Test func version() throws {
    let run = try Self.run(["--version"])
    #expect(run.status == 0)
    #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
  }
}
