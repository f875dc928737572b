import ArgumentParser
import Dispatch
import Foundation
import Sift
import SiftStore

/// `sift sync URL --catalog LOCAL.sqlite`: a catalog file on this machine kept a copy of one a
/// Sift server serves, to search offline with the same answers.
struct SyncCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync",
    abstract: "Copy a served catalog into a local file, or bring the copy up to date.",
    discussion: """
      The first run copies the catalog whole (schema, synonyms, items, in the server's order); \
      later runs bring only what changed. A sync is all or nothing: cut off (network, server, \
      Ctrl-C), the local file is as it was. Search the copy like any catalog file: \
      sift search --catalog LOCAL.sqlite QUERY.

      With a tenant token the copy holds only the tenant's items. The server must have the \
      catalog's change log: any .sqlite or PostgreSQL catalog it serves.

      Exit status: 0 done; 1 the server's or the local file's error; 2 a wrong URL or a local \
      file that is another catalog; 3 the server cannot be reached; 4 the key or token is \
      refused; 5 no such catalog, or not a Sift server; 130 interrupted.

      Examples:
        sift sync http://localhost:7700/catalogs/cities --catalog cities-copy.sqlite
        sift sync https://search.example.com/catalogs/products --catalog products.sqlite \\
          --token-file tenant.token
      """
  )

  @Argument(help: "The catalog on the server: http(s)://HOST[:PORT]/catalogs/NAME.")
  var url: String

  @Option(help: "The local catalog file to make or bring up to date (.sqlite).")
  var catalog: String

  @Option(help: "A file holding the key or tenant token the server asks for.")
  var tokenFile: String?

  @Option(help: "Items or changes a request asks for (1 to 10000).")
  var pageSize: Int = 2_000

  @Flag(
    help:
      "Print what it did as one JSON object: added, changed, deleted, synonyms_changed, version, previous_version, items, first_copy, started_over, bytes, seconds."
  )
  var json = false

  func run() async throws {
    guard (1...10_000).contains(pageSize) else {
      throw Failure.exit("--page-size: \(pageSize) is not from 1 to 10000", status: 2)
    }
    // Anything but a server's address is refused by CatalogSync, which says what it expects.
    guard let address = try CatalogArgument.serverURL(url) ?? URL(string: url) else {
      throw Failure.exit("\(url): not a URL (http(s)://HOST[:PORT]/catalogs/NAME)", status: 2)
    }
    let local: URL
    switch try CatalogArgument(catalog).place {
    case .local(.file(let file)): local = file
    case .local(.builtIn(let name)):
      throw Failure.exit(
        "--catalog \(name) is a built-in catalog: sync into a .sqlite file of its own", status: 2)
    case .postgres, .server:
      throw Failure.exit(
        "--catalog \(catalog): a copy is a .sqlite file on this machine", status: 2)
    }
    let token = try tokenFile.map(Self.readToken)
    var sync: CatalogSync
    do {
      sync = try CatalogSync(from: address, to: local, token: token)
    } catch {
      throw Failure.exit(error.description, status: error.exitStatus)
    }
    sync.pageSize = pageSize
    let meter = SyncMeter(showsProgress: StandardStreams.isErrorTerminal)
    let task = Task { [sync] () -> Result<SyncReport, SyncError> in
      do throws(SyncError) {
        return .success(try await sync.run(progress: meter.show))
      } catch {
        return .failure(error)
      }
    }
    // Ctrl-C or a TERM cancels the sync, which leaves the local file as it was.
    let stop = Self.cancelling(task, on: [SIGINT, SIGTERM])
    defer { stop.forEach { $0.cancel() } }
    let report: SyncReport
    switch await task.value {
    case .success(let done):
      report = done
    case .failure(let error):
      meter.clear()
      let message =
        error == .cancelled ? "sync interrupted: \(catalog) is as it was" : error.description
      throw Failure.exit(message, status: error.exitStatus)
    }
    meter.clear()
    print(json ? Self.json(report, seconds: meter.elapsed).text : report.description)
  }

  /// The report as `--json` prints it.
  static func json(_ report: SyncReport, seconds: Double) -> JSONValue {
    .object([
      ("added", .number(Double(report.added))), ("changed", .number(Double(report.changed))),
      ("deleted", .number(Double(report.deleted))),
      ("synonyms_changed", .bool(report.synonymsChanged)),
      ("version", .number(Double(report.version))),
      ("previous_version", report.previousVersion.map { .number(Double($0)) } ?? .null),
      ("items", report.itemCount.map { .number(Double($0)) } ?? .null),
      ("first_copy", .bool(report.isFirstCopy)),
      ("started_over", .optional(report.startedOver)),
      ("bytes", .number(Double(report.bytesReceived))),
      ("seconds", .number((seconds * 1000).rounded() / 1000)),
    ])
  }

  /// A key or token read from `path`, without the white space around it.
  static func readToken(_ path: String) throws -> String {
    let text = try TextFileReader.text(of: path, what: "the token file")
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw Failure.exit("the token file \(path) is empty", status: 2) }
    return trimmed
  }

  /// Signal sources that cancel `task` on `signals`, which no longer end the process.
  static func cancelling<T, E>(_ task: Task<T, E>, on signals: [Int32])
    -> [any DispatchSourceSignal]
  {
    signals.map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { task.cancel() }
      source.resume()
      return source
    }
  }
}

/// A sync's progress on standard error, one line rewritten in place: on a terminal only, and
/// at most ten times a second but for a new stage.
final class SyncMeter: Sendable {
  private let showsProgress: Bool
  private let start = Date()
  private let state = Locked(
    (last: Date.distantPast, shown: false, stage: SyncProgress.Stage?.none))

  init(showsProgress: Bool) { self.showsProgress = showsProgress }

  /// Seconds since the sync began.
  var elapsed: Double { Date().timeIntervalSince(start) }

  func show(_ progress: SyncProgress) {
    guard showsProgress else { return }
    let now = Date()
    let line: String? = state.withLock { state in
      guard now.timeIntervalSince(state.last) >= 0.1 || progress.stage != state.stage else {
        return nil
      }
      state.last = now
      state.stage = progress.stage
      state.shown = true
      let seconds = max(now.timeIntervalSince(start), 0.001)
      let megabytes = Double(progress.bytesReceived) / 1_048_576
      switch progress.stage {
      case .items:
        return String(
          format: "copying: %@ items, %.1f MB, %@ items/s", grouped(progress.items), megabytes,
          grouped(Int(Double(progress.items) / seconds)))
      case .changes:
        return String(format: "reading changes: %@, %.1f MB", grouped(progress.changes), megabytes)
      case .indexing:
        return "indexing \(grouped(progress.items)) items"
      }
    }
    if let line { FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8)) }
  }

  /// Takes the progress line away before the outcome is printed.
  func clear() {
    guard state.withLock({ $0.shown }) else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }

  private func grouped(_ value: Int) -> String { FieldValue.grouped(Double(value), from: 1_000) }

}
