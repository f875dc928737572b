#if Server
import ArgumentParser
import Foundation
import Sift
import SiftServer
import SiftStore

/// `sift keys`: the keys of `sift serve`, from the command line — the same file and rules as
/// `POST/GET/DELETE /keys`. A running server sees a change within a second.
struct KeysCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keys",
    abstract: "Make, list and revoke the keys of sift serve; sign tenant tokens.",
    discussion: """
      Keys are kept hashed in a file of their own: --keys FILE, by default keys.json in the \
      data folder ($SIFT_DATA_DIR, else $XDG_DATA_HOME/sift, else ~/.local/share/sift), the \
      file sift serve reads. A key is shown once, when it is made.

      Examples:
        sift keys create --catalog products --action search --expires 2027-01-01
        sift keys list
        sift keys revoke 3f9a0c1d2e4b5a69
        sift keys token --key sift_… --catalog products --filter category:Roses \\
          --expires-in 3600
      """,
    subcommands: [Create.self, List.self, Revoke.self, Token.self])

  /// The key file at `path`, or the data folder's `keys.json`: what `sift serve` reads too.
  static func store(_ path: String?) -> KeyStore {
    KeyStore(
      url: path.map { URL(fileURLWithPath: $0) }
        ?? DataDirectory.resolve().appendingPathComponent("keys.json"))
  }

  /// `--keys FILE`, shared by every subcommand.
  struct FileOption: ParsableArguments {
    @Option(
      name: .customLong("keys"),
      help: ArgumentHelp(
        "The key file (default: keys.json in the data folder).", valueName: "FILE"))
    var path: String?

    var store: KeyStore { KeysCommand.store(path) }

    /// Every key of the file; one that cannot be read is said and exits 1.
    func keys() throws -> [APIKey] {
      do {
        return try store.list()
      } catch {
        throw Failure.exit(error.description, status: 1)
      }
    }
  }

  struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "create",
      abstract: "Make a key: prints it once, then only its id and prefix are shown.")

    @Option(
      name: .customLong("catalog"),
      help: "A catalog the key opens (repeatable; * for every one).")
    var catalogs: [String] = []

    @Option(
      name: .customLong("action"),
      help: "What it may do there: search, edit or admin (repeatable).")
    var actions: [KeyAction] = []

    @Option(help: "When it stops working: 2027-01-01 or 2027-01-01T12:00:00Z. Never, by default.")
    var expires: String?

    @Option(help: "Words to tell it apart in a list.")
    var description: String?

    @Option(help: "Requests a minute it may make (the server's --rate-limit by default).")
    var requestsPerMinute: Int?

    @Flag(help: "Print the key and its record as one JSON object.")
    var json = false

    @OptionGroup var file: FileOption

    func run() throws {
      var expiry: Date?
      if let expires {
        guard let date = KeyRequest.date(expires) else {
          throw Failure.exit(
            "--expires: \"\(expires)\" is not a date such as 2027-01-01 or 2027-01-01T12:00:00Z",
            status: 2)
        }
        expiry = date
      }
      let request = KeyRequest(
        catalogs: catalogs, actions: actions, expires: expiry, description: description,
        requestsPerMinute: requestsPerMinute)
      do {
        let made = try file.store.create(request)
        if json {
          var members = made.key.jsonMembers
          members.append(("key", .string(made.secret)))
          print(JSONValue.object(sorting: members).text)
        } else {
          print(made.secret)
          StandardStreams.error(
            "sift: key \(made.key.id) made (\(Self.summary(made.key))); it is shown this once")
        }
      } catch {
        throw Failure.exit(
          error.description.replacingOccurrences(of: "catalogs:", with: "--catalog:")
            .replacingOccurrences(of: "actions:", with: "--action:"),
          status: { if case .invalid = error { 2 } else { 1 } }())
      }
    }

    static func summary(_ key: APIKey) -> String {
      var parts = [
        key.actions.map(\.rawValue).joined(separator: ", ") + " on "
          + key.catalogs.joined(separator: ", ")
      ]
      if let expires = key.expires {
        parts.append("until \(ISO8601DateFormatter().string(from: expires))")
      }
      if let rate = key.requestsPerMinute { parts.append("\(rate) requests a minute") }
      return parts.joined(separator: ", ")
    }
  }

  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list",
      abstract: "List the keys: id, prefix, actions, catalogs, expiry (never the key).")

    @Flag(help: "One JSON object per key and line.")
    var json = false

    @OptionGroup var file: FileOption

    func run() throws {
      let keys = try file.keys()
      for key in keys {
        if json {
          print(key.json.text)
        } else {
          let description = key.description.map { "  \($0)" } ?? ""
          print("\(key.id)  \(key.prefix)…  \(Create.summary(key))\(description)")
        }
      }
      if !json { StandardStreams.error("sift: \(keys.count) key\(keys.count == 1 ? "" : "s")") }
    }
  }

  struct Revoke: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "revoke",
      abstract: "Revoke a key by its id: it and the tenant tokens it signed stop working.")

    @Argument(help: "The key's id (sift keys list).")
    var id: String

    @OptionGroup var file: FileOption

    func run() throws {
      let revoked: Bool
      do {
        revoked = try file.store.revoke(id: id)
      } catch {
        throw Failure.exit(error.description, status: 1)
      }
      guard revoked else { throw Failure.exit("no key with id \(id)", status: 2) }
      StandardStreams.error("sift: key \(id) revoked")
    }
  }

  struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "token",
      abstract:
        "Sign a tenant token with a search key: a browser holding it searches only its rows.",
      discussion: """
        A filter is a token identifier that names a category or a number (category:Roses, \
        seller:42, year:>=2010); every search of that catalog with the token gets it, and so \
        do its counts, facets, suggestions and item reads. A negated one is written \
        --filter=-category:Hidden. Without --filter, the token searches the catalog whole.
        """)

    @Option(help: "The search key that signs it (the secret sift keys create printed).")
    var key: String

    @Option(
      name: .customLong("catalog"), help: "A catalog the token may search (repeatable).")
    var catalogs: [String] = []

    @Option(
      name: .customLong("filter"),
      help: "A filter forced on every catalog of the token (repeatable; all must hold).")
    var filters: [String] = []

    @Option(help: "Seconds until it expires.")
    var expiresIn = 3600

    @OptionGroup var file: FileOption

    func validate() throws {
      guard !catalogs.isEmpty else { throw ValidationError("name a catalog with --catalog") }
      guard (1...31_536_000).contains(expiresIn) else {
        throw ValidationError("--expires-in must be from 1 to 31536000 seconds, not \(expiresIn)")
      }
    }

    func run() throws {
      let keys = try file.keys()
      guard let record = keys.first(where: { $0.matches(secret: key) }) else {
        throw Failure.exit(
          "--key: not a key of \(file.store.url.path) (sift keys list shows them)", status: 2)
      }
      for catalog in catalogs where !record.allows(.search, catalog: catalog) {
        throw Failure.exit(
          "--catalog: key \(record.id) may not search catalog \(catalog)", status: 2)
      }
      // Refused here with the reason the server would give, rather than signed and refused
      // at the first search.
      for catalog in catalogs {
        let fault =
          if let schema = Self.localSchema(catalog) {
            TenantToken.fault(of: filters, schema: schema)
          } else {
            filters.lazy.compactMap(TenantToken.fault(ofFilter:)).first
          }
        if let fault { throw Failure.exit("--filter: \(fault)", status: 2) }
      }
      let token = TenantToken(
        keyID: record.id, filters: Dictionary(uniqueKeysWithValues: catalogs.map { ($0, filters) }),
        expires: Date().addingTimeInterval(TimeInterval(expiresIn)))
      print(token.signed(withKey: key))
    }
  }
}

extension KeysCommand.Token {
  /// The schema of the catalog served as `name`, when it is at hand: a built-in catalog, or
  /// `NAME.sqlite` in the current folder. Nil otherwise (the filters' shape is checked alone).
  static func localSchema(_ name: String) -> CatalogSchema? {
    if let builtIn = BuiltInCatalog(rawValue: name) { return try? builtIn.load().schema }
    let file = URL(fileURLWithPath: name + ".sqlite")
    guard FileManager.default.fileExists(atPath: file.path),
      let store = try? CatalogStore.open(at: file)
    else { return nil }
    defer { try? store.close() }
    return try? store.loadSchema()
  }
}

extension KeyAction: ExpressibleByArgument {}
#endif
