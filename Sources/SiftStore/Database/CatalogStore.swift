import Foundation
import GRDB
import Sift

/// One catalog in one SQLite file: its schema, its items with stable ids in catalog order, and
/// its saved search state.
///
/// The file is in WAL mode and every change — an edit, a whole import — is one transaction, so a
/// crash leaves either the old or the new data. A file that is not a Sift catalog is opened
/// read-only to find that out, and left exactly as it was.
public final class CatalogStore: Sendable {
  /// `PRAGMA application_id` of Sift catalogs: "SIFT".
  static let applicationID: Int32 = 0x5349_4654

  public let url: URL
  let queue: DatabaseQueue

  private init(url: URL, queue: DatabaseQueue) {
    self.url = url
    self.queue = queue
  }

  var path: String { url.path }

  // MARK: - Opening and creating

  /// Opens an existing catalog, upgrading an older format in place.
  ///
  /// - Throws: `StoreError.notFound`, `.notSQLite`, `.notACatalog` or `.newerFormat`; in each
  ///   case the file is not modified.
  public static func open(at url: URL) throws(StoreError) -> CatalogStore {
    let path = url.path
    guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path) }
    try inspect(path)
    do {
      let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: false))
      try migrator.migrate(queue)
      return CatalogStore(url: url, queue: queue)
    } catch {
      throw StoreError.database(path, message: describe(error))
    }
  }

  /// Creates a catalog file holding `document`. The file appears whole or not at all: it is
  /// written under a temporary name and renamed into place.
  public static func create(
    at url: URL, document: CatalogDocument
  ) throws(StoreError) -> CatalogStore {
    let path = url.path
    guard !FileManager.default.fileExists(atPath: path) else { throw .alreadyExists(path) }
    do {
      try document.schema.validate()
    } catch {
      throw .invalidSchema(path, error)
    }
    let temporary = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).creating")
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      do {
        let queue = try DatabaseQueue(
          path: temporary.path, configuration: configuration(readonly: false))
        try queue.writeWithoutTransaction { db in
          try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        }
        try migrator.migrate(queue)
        let store = CatalogStore(url: temporary, queue: queue)
        try queue.write { db in
          try store.writeSchema(document.schema, db)
          for (position, item) in document.items.enumerated() {
            try store.insert(item, position: Int64(position), schema: document.schema, db)
          }
        }
        try queue.close()
      }
      try FileManager.default.moveItem(at: temporary, to: url)
    } catch let error as StoreError {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw .database(path, message: describe(error))
    }
    return try open(at: url)
  }

  /// Reads the file without writing to find out whether it is a Sift catalog this version of
  /// Sift can open.
  static func inspect(_ path: String) throws(StoreError) {
    let header: Data
    do {
      let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      header = try handle.read(upToCount: 16) ?? Data()
      try handle.close()
    } catch {
      throw .database(path, message: describe(error))
    }
    guard header == Data("SQLite format 3\0".utf8) else { throw .notSQLite(path) }
    do {
      let queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
      defer { try? queue.close() }
      try queue.read { db in
        let id = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
        guard id == applicationID else { throw StoreError.notACatalog(path) }
        if try migrator.hasBeenSuperseded(db) { throw StoreError.newerFormat(path) }
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw .notSQLite(path)
    }
  }

  private static func configuration(readonly: Bool) -> Configuration {
    var configuration = Configuration()
    configuration.readonly = readonly
    if !readonly { configuration.journalMode = .wal }
    configuration.busyMode = .timeout(5)
    return configuration
  }

  /// The versioned format of catalog files. Add migrations; never change a released one.
  static let migrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE catalog (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            schema TEXT NOT NULL
          );
          CREATE TABLE items (
            id TEXT PRIMARY KEY NOT NULL,
            position INTEGER NOT NULL
          );
          CREATE INDEX items_by_position ON items(position);
          CREATE TABLE search_state (
            name TEXT PRIMARY KEY NOT NULL,
            snapshot BLOB NOT NULL,
            saved_at TEXT NOT NULL
          );
          """)
    }
    return migrator
  }()

  /// Closes the file; later calls fail.
  public func close() throws(StoreError) {
    do {
      try queue.close()
    } catch {
      throw .database(path, message: Self.describe(error))
    }
  }

  static func describe(_ error: any Error) -> String {
    if let error = error as? DatabaseError {
      return error.message ?? "SQLite error \(error.resultCode.rawValue)"
    }
    return (error as NSError).localizedDescription
  }

  /// Runs `body` in one write transaction, mapping failures to `StoreError`.
  func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
    do {
      return try queue.write { db in try body(db) }
    } catch let error as StoreError {
      throw error
    } catch let error as CatalogEditError {
      throw .edit(error)
    } catch {
      throw .database(path, message: Self.describe(error))
    }
  }

  func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
    do {
      return try queue.read { db in try body(db) }
    } catch let error as StoreError {
      throw error
    } catch {
      throw .database(path, message: Self.describe(error))
    }
  }
}
