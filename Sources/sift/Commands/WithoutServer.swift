#if !Server
import ArgumentParser

/// What a build without the `Server` trait says where the server or PostgreSQL is asked for:
/// the default build leaves Hummingbird and postgres-nio out, so that the first
/// `swift run sift` builds only what the terminal app needs.
enum WithoutServer {
  static let howToBuild =
    "build sift with the Server trait: swift build --traits Server (or swift run --traits Server sift …)"

  static func refusal(_ what: String) -> Error {
    Failure.exit("\(what) is not in this build; \(howToBuild)", status: 2)
  }
}

/// `sift serve` in a build without the server: says how to get one.
struct ServeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Serve catalogs over HTTP (needs a build with the Server trait).")

  @Argument(parsing: .allUnrecognized, help: .hidden)
  var arguments: [String] = []

  func run() throws { throw WithoutServer.refusal("sift serve") }
}

/// Recognises a PostgreSQL address, to say that this build cannot open one.
enum PostgresAddress {
  static func isPostgres(_ argument: String) -> Bool {
    argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://")
  }
}

extension Failure {
  static var postgresRefusal: Error { WithoutServer.refusal("a catalog in PostgreSQL") }
}

extension AppCommand {
  func runOnPostgres() throws { throw Failure.postgresRefusal }
}

extension BenchCommand {
  func runOnPostgres(_ lines: [String]) async throws { throw Failure.postgresRefusal }
}

extension ImportCommand {
  func importIntoPostgres() async throws { throw Failure.postgresRefusal }
}
#endif

#if !Server
/// `sift keys` in a build without the server: says how to get one.
struct KeysCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keys",
    abstract: "Manage the keys of sift serve (needs a build with the Server trait).")

  @Argument(parsing: .allUnrecognized, help: .hidden)
  var arguments: [String] = []

  func run() throws { throw WithoutServer.refusal("sift keys") }
}
#endif
