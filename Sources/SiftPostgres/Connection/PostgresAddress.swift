#if Server
import Foundation

/// A catalog in PostgreSQL as the command line names it (docs/command-line.md):
/// `postgresql://[USER[:PASSWORD]@]HOST[:PORT]/DB?catalog=NAME`. `postgres://` is accepted too;
/// `?host=/dir` reaches the server through the Unix socket in that folder instead.
public struct PostgresAddress: Hashable, Sendable, CustomStringConvertible {
  public var user: String
  public var password: String?
  public var host: String
  public var port: Int
  public var database: String
  /// The catalog's name: its tables live in the schema `sift_NAME`.
  public var catalog: String
  /// The folder of the server's Unix socket, when given (`?host=/run/postgresql`).
  public var socketFolder: String?

  /// Whether an argument is meant as a PostgreSQL address (and so must parse as one).
  public static func isPostgres(_ argument: String) -> Bool {
    argument.hasPrefix("postgresql://") || argument.hasPrefix("postgres://")
  }

  /// Reads an address; the error names the part that is wrong.
  public init(_ argument: String) throws(PostgresError) {
    guard Self.isPostgres(argument), let components = URLComponents(string: argument) else {
      throw .address(argument, "not a postgresql://[USER@]HOST[:PORT]/DB?catalog=NAME address")
    }
    let items = components.queryItems ?? []
    for item in items where !["catalog", "host"].contains(item.name) {
      throw .address(argument, "unknown parameter \"\(item.name)\" (only catalog and host)")
    }
    guard let catalog = items.first(where: { $0.name == "catalog" })?.value, !catalog.isEmpty
    else {
      throw .address(argument, "name the catalog: ?catalog=NAME")
    }
    guard Self.isValidCatalogName(catalog) else {
      throw .address(
        argument,
        "catalog name \"\(catalog)\" must be letters a–z, digits and _, starting with a letter, at most 40"
      )
    }
    let database = String(components.path.drop { $0 == "/" })
    guard !database.isEmpty, !database.contains("/") else {
      throw .address(argument, "name the database after the host: postgresql://HOST/DB")
    }
    socketFolder = items.first { $0.name == "host" }?.value
    guard let host = components.host, !host.isEmpty || socketFolder != nil else {
      throw .address(argument, "name the host: postgresql://HOST/DB")
    }
    self.host = host.isEmpty ? "localhost" : host
    port = components.port ?? 5432
    user = components.user ?? ProcessInfo.processInfo.environment["PGUSER"] ?? "postgres"
    password = components.password ?? ProcessInfo.processInfo.environment["PGPASSWORD"]
    self.database = database
    self.catalog = catalog
  }

  /// Lower-case letters, digits and `_`, starting with a letter: safe to use in an SQL name.
  static func isValidCatalogName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 40
    else { return false }
    return name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
    }
  }

  /// The SQL schema holding the catalog's tables.
  public var schemaName: String { "sift_\(catalog)" }

  /// The address without the password.
  public var description: String {
    let socket = socketFolder.map { "&host=\($0)" } ?? ""
    return "postgresql://\(user)@\(host):\(port)/\(database)?catalog=\(catalog)\(socket)"
  }
}
#endif
