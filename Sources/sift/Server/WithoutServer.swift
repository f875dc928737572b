#if !Server
import ArgumentParser
import Foundation
import Sift

/// What a build without the `Server` trait says where the server or PostgreSQL is asked for:
/// the default build leaves Hummingbird and postgres-nio out, so that the first
/// `swift run sift` builds only what the terminal app needs. Every refusal is made here.
enum WithoutServer {
  static let howToBuild =
    "build sift with the Server trait: swift build --traits Server (or swift run --traits Server sift …)"

  static func refusal(_ what: String) -> Error {
    Failure.exit("\(what) is not in this build; \(howToBuild)", status: 2)
  }

  /// The commands only a build with the trait has.
  static let serverCommandNames: Set<String> = ["serve", "keys"]
}

extension SiftCommand {
  /// No server commands in this build.
  static var serverCommands: [any ParsableCommand.Type] { [] }

  /// `sift serve` and `sift keys` hear how to get a build that has them, rather than that
  /// `serve` is not an argument of the terminal app.
  static func main() async {
    let arguments = CommandLine.arguments.dropFirst()
    if let command = arguments.first, WithoutServer.serverCommandNames.contains(command) {
      _ = WithoutServer.refusal("sift \(command)")
      Foundation.exit(2)
    }
    await main(nil)
  }
}

/// A catalog in PostgreSQL, which this build cannot open.
enum PostgresCatalogs {
  static var refusal: Error { WithoutServer.refusal("a catalog in PostgreSQL") }
  static func name(of address: String) throws -> String { throw refusal }
}

extension OpenedCatalog {
  static func openPostgres(
    _ address: String, for use: Use, cache: String?, keeping: (changes: Int, days: Int)
  ) async throws -> OpenedCatalog { throw PostgresCatalogs.refusal }
}

extension AppCommand {
  func runOnPostgres(_ address: String) throws { throw PostgresCatalogs.refusal }
}

extension BenchCommand {
  func runOnPostgres(_ address: String, _ lines: [String]) async throws {
    throw PostgresCatalogs.refusal
  }
}

extension ImportCommand {
  func importIntoPostgres(_ address: String) async throws { throw PostgresCatalogs.refusal }
}

extension SynonymsCommand {
  static func postgresSynonyms(_ address: String) async throws -> Synonyms {
    throw PostgresCatalogs.refusal
  }

  static func changePostgresSynonyms(
    _ address: String, _ body: (inout Synonyms) throws -> String
  ) async throws { throw PostgresCatalogs.refusal }
}
#endif
