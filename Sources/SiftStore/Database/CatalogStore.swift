import Foundation
import GRDB
import GRDBSQLite
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
  /// One connection; or, opened with `concurrentReads`, a pool: reads (a page's rows) go on
  /// beside a write (an edit being saved) instead of waiting for it, each seeing the file as the
  /// last committed write left it.
  let queue: any DatabaseWriter
  /// Set by `close()`: GRDB must not be asked anything after, and a search that reads its rows
  /// when shown may outlive the store's owner closing it.
  private let closed = ClosedFlag()
  /// `retention`.
  let keptRetention = Locked(ChangeLogRetention())

  private init(url: URL, queue: any DatabaseWriter) {
    self.url = url
    self.queue = queue
  }

  var path: String { url.path }

  /// Whether it was opened with `concurrentReads`.
  public var allowsConcurrentReads: Bool { queue is DatabasePool }

  // MARK: - Opening and creating

  /// Opens an existing catalog, upgrading an older format in place. `concurrentReads`: a pool
  /// of connections (a server's), rather than the one a command needs (3 ms less to open).
  ///
  /// - Throws: `StoreError.notFound`, `.notSQLite`, `.notACatalog` or `.newerFormat`; in each
  ///   case the file is not modified.
  public static func open(at url: URL, concurrentReads: Bool = false) throws(StoreError)
    -> CatalogStore
  {
    let path = url.path
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw .notFound(path)
    }
    guard !isFolder.boolValue else { throw .isFolder(path) }
    try inspect(path)
    do {
      let writer: any DatabaseWriter =
        concurrentReads
        ? try DatabasePool(path: path, configuration: configuration(pool: true))
        : try DatabaseQueue(path: path, configuration: configuration())
      try migrator.migrate(writer)
      return CatalogStore(url: url, queue: writer)
    } catch {
      throw StoreError.failure(path, error)
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
          path: temporary.path, configuration: configuration())
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
          try store.writeIndex(of: document, db)
          try Self.restartLog(db)
        }
        try queue.close()
      }
      try FileManager.default.moveItem(at: temporary, to: url)
      // The index file written beside the temporary name follows it (the catalog records its
      // token, not its name).
      try IndexFile.install(
        IndexFile.url(forCatalogAt: temporary), at: IndexFile.url(forCatalogAt: url))
    } catch let error as StoreError {
      try? FileManager.default.removeItem(at: temporary)
      try? FileManager.default.removeItem(at: IndexFile.url(forCatalogAt: temporary))
      throw error
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      try? FileManager.default.removeItem(at: IndexFile.url(forCatalogAt: temporary))
      throw .failure(path, error)
    }
    let store = try open(at: url)
    // The rename moved the index file's change time: its stamp is taken again, in place.
    try store.write { db in
      try Self.recordStamp(ofIndexFileAt: IndexFile.url(forCatalogAt: url), db)
    }
    return store
  }

  /// Removes a catalog file and what SQLite and Sift keep beside it (a sync's copy that was
  /// given up, a catalog an import made and could not finish).
  static func remove(at url: URL) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
      try? FileManager.default.removeItem(atPath: url.path + suffix)
    }
    try? FileManager.default.removeItem(at: IndexFile.url(forCatalogAt: url))
  }

  /// Reads the file without writing to find out whether it is a Sift catalog this version of
  /// Sift can open. SQLite is opened with `immutable=1`, so not even a `-shm` or `-wal` file
  /// appears beside a file that turns out not to be ours — unless a `-wal` is there already:
  /// then the file was last written in WAL mode and not closed (a crash, a kill), its log may
  /// hold pages the main file's header already counts, and only a reader that reads the log
  /// sees a whole database.
  static func inspect(_ path: String) throws(StoreError) {
    let header: Data
    do {
      let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      header = try handle.read(upToCount: 16) ?? Data()
      try handle.close()
    } catch {
      throw .failure(path, error)
    }
    guard header == Data("SQLite format 3\0".utf8) else { throw .notSQLite(path) }
    // With no log beside it the file is read as it stands (`immutable`), writing nothing. A
    // process that writes it at that moment (another `sift`, opening it in WAL mode) can make
    // that read fail or meet a lock: then it is read again as a reader that takes the locks
    // and waits for them, and only SQLite's own "not a database" says the file is not one.
    let hasLog = FileManager.default.fileExists(atPath: path + "-wal")
    var result = inspection(path, immutable: !hasLog)
    if case .failure(let failure) = result, failure.code != SQLITE_NOTADB, !hasLog {
      result = inspection(path, immutable: false)
    }
    switch result {
    case .failure(let failure) where failure.code == SQLITE_NOTADB: throw .notSQLite(path)
    case .failure(let failure):
      throw .database(
        path,
        message: "could not read the catalog (\(String(cString: sqlite3_errstr(failure.code))))",
        resultCode: failure.code)
    case .success(let (id, applied)):
      guard Int32(truncatingIfNeeded: Int64(id) ?? 0) == applicationID else {
        throw .notACatalog(path)
      }
      if applied.contains(where: { !knownMigrations.contains($0) }) { throw .newerFormat(path) }
    }
  }

  /// The file's application id and the migrations applied to it, read-only (`immutable`: as
  /// the file stands, taking no lock), waiting up to a few seconds for another process's lock;
  /// or SQLite's primary result code.
  private static func inspection(
    _ path: String, immutable: Bool
  ) -> Result<(id: String, migrations: [String]), InspectionFailure> {
    var components = URLComponents()
    components.scheme = "file"
    components.path = URL(fileURLWithPath: path).standardizedFileURL.path
    components.queryItems = [
      URLQueryItem(name: immutable ? "immutable" : "mode", value: immutable ? "1" : "ro")
    ]
    var connection: OpaquePointer?
    defer { sqlite3_close_v2(connection) }
    guard let uri = components.string else { return .failure(InspectionFailure(SQLITE_CANTOPEN)) }
    let opened = sqlite3_open_v2(uri, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
    guard opened == SQLITE_OK else { return .failure(InspectionFailure(opened & 0xFF)) }
    sqlite3_busy_timeout(connection, 5_000)
    let id: [String]
    switch allRows(connection, "PRAGMA application_id") {
    case .success(let rows) where !rows.isEmpty: id = rows
    case .success: return .failure(InspectionFailure(SQLITE_NOTADB))
    case .failure(let failure): return .failure(failure)
    }
    // No table of migrations: none applied (an SQLite file of another application).
    let applied = (try? allRows(connection, "SELECT identifier FROM grdb_migrations").get()) ?? []
    return .success((id[0], applied))
  }

  /// SQLite's primary result code for what went wrong.
  struct InspectionFailure: Error {
    var code: Int32
    init(_ code: Int32) { self.code = code }
  }

  /// The migrations this version of Sift knows, oldest first.
  static let knownMigrations: Set<String> = [
    "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
  ]

  /// The first column of every row `sql` gives, or SQLite's primary result code.
  private static func allRows(
    _ connection: OpaquePointer?, _ sql: String
  ) -> Result<[String], InspectionFailure> {
    var statement: OpaquePointer?
    let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
    guard prepared == SQLITE_OK else { return .failure(InspectionFailure(prepared & 0xFF)) }
    defer { sqlite3_finalize(statement) }
    var rows: [String] = []
    while true {
      let step = sqlite3_step(statement)
      if step == SQLITE_DONE { return .success(rows) }
      guard step == SQLITE_ROW else { return .failure(InspectionFailure(step & 0xFF)) }
      if let text = sqlite3_column_text(statement, 0) { rows.append(String(cString: text)) }
    }
  }

  /// A connection in WAL mode. A pool's is GRDB's, which writes to the catalog on opening so
  /// that the `-wal` file exists for its readers; a single connection (a command's) needs no
  /// such file, so it sets the mode itself and an open that reads writes nothing (no sync on
  /// opening, no checkpoint on closing).
  private static func configuration(pool: Bool = false) -> Configuration {
    var configuration = Configuration()
    if pool {
      configuration.journalMode = .wal
      // A server's edits keep coming: once a checkpoint has let the log start over, its file
      // is cut back to this size rather than kept at the largest it ever grew to.
      configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA journal_size_limit = \(walSizeLimit)")
      }
    } else {
      configuration.prepareDatabase { db in
        guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
          throw DatabaseError(message: "could not use WAL mode at \(db.description)")
        }
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
      }
    }
    configuration.busyMode = .timeout(5)
    return configuration
  }

  /// The versioned format of catalog files. Add migrations; never change a released one.
  static let migrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    // Keep `knownMigrations` in step with the identifiers registered here.
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
    // v2: the index kept in the file. Every change to the items — through Sift or not — moves
    // the generation in the same transaction, so an archive stamped with an older one is known
    // to be stale and is never searched.
    migrator.registerMigration("v2") { db in
      try db.execute(
        sql: """
          CREATE TABLE items_generation (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            value INTEGER NOT NULL
          );
          INSERT INTO items_generation (id, value) VALUES (1, 0);
          CREATE TRIGGER items_inserted AFTER INSERT ON items
            BEGIN UPDATE items_generation SET value = value + 1; END;
          CREATE TRIGGER items_updated AFTER UPDATE ON items
            BEGIN UPDATE items_generation SET value = value + 1; END;
          CREATE TRIGGER items_deleted AFTER DELETE ON items
            BEGIN UPDATE items_generation SET value = value + 1; END;
          CREATE TRIGGER schema_changed AFTER UPDATE OF schema ON catalog
            BEGIN UPDATE items_generation SET value = value + 1; END;
          CREATE TABLE search_index (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            generation INTEGER NOT NULL,
            archive BLOB NOT NULL
          );
          """)
    }
    // v3: the edits since the archive was saved. Each change to an item logs its id under the
    // generation it moved to, in the change's transaction, so an open replays the few items
    // changed since the archive instead of folding them all; a generation with no entry (a
    // schema change) means the log cannot explain the gap, and the index is built afresh.
    migrator.registerMigration("v3") { db in
      try db.execute(
        sql: """
          CREATE TABLE items_changes (
            generation INTEGER NOT NULL,
            id TEXT NOT NULL,
            inserted INTEGER NOT NULL
          );
          CREATE INDEX items_changes_by_generation ON items_changes(generation);
          DROP TRIGGER items_inserted;
          DROP TRIGGER items_updated;
          DROP TRIGGER items_deleted;
          """ + CatalogStore.changeLogTriggers)
    }
    // v4: the near-spelling dictionaries beside the index archive (`NearSpellingArchive`), so
    // the first misspelt search reads them instead of reading every word. The archive of an
    // older file goes, so that the first open builds and saves both together.
    migrator.registerMigration("v4") { db in
      try db.execute(
        sql: """
          ALTER TABLE search_index ADD COLUMN near_spellings BLOB;
          DELETE FROM search_index;
          """)
    }
    // v5: numeric ids in an index of their own, so numbering an add reads the largest of them
    // (`ItemIDAllocator`) instead of every id (80 ms of each add on the 235k cities).
    migrator.registerMigration("v5") { db in
      try db.execute(
        sql: """
          CREATE INDEX items_by_number ON items(CAST(id AS INTEGER)) WHERE id GLOB '[0-9]*';
          """)
    }
    // v6: the index in a file of its own beside the catalog (`IndexFile`), mapped on open
    // instead of copied out of a blob; the catalog records which file answers which generation.
    // The blobs go (their pages are reused), so the first open builds and writes the file.
    migrator.registerMigration("v6") { db in
      try db.execute(
        sql: """
          DROP TABLE IF EXISTS search_index;
          CREATE TABLE IF NOT EXISTS index_file (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            generation INTEGER NOT NULL,
            token TEXT NOT NULL
          );
          """)
    }
    // v7: the stamp (`IndexFile.Stamp`) of the index file as Sift wrote it: a file that keeps
    // it is read without its checksum, so opening reads only the pages a search touches.
    migrator.registerMigration("v7") { db in
      try db.execute(sql: "ALTER TABLE index_file ADD COLUMN stamp TEXT")
    }
    // v8: the change feed (`CatalogStore+Feed`). The catalog's identity, which a file made
    // again does not share, and the generation up to which the log was cut: it is kept for
    // copies that follow the catalog rather than emptied at each index save.
    migrator.registerMigration("v8") { db in
      try db.execute(
        sql: """
          CREATE TABLE feed (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            identity TEXT NOT NULL,
            log_start INTEGER NOT NULL
          );
          INSERT INTO feed (id, identity, log_start)
            SELECT 1, lower(hex(randomblob(16))), value FROM items_generation;
          """)
    }
    // v9: what an item held before a change replaced or deleted it, beside the change's log
    // entry, so that a reader who may see only some items (a tenant) is told of a delete only
    // when it could have seen the item (`CatalogStore.changes`).
    migrator.registerMigration("v9") { db in
      // The triggers name the log's columns from here on (v3's wrote every column).
      try db.execute(
        sql: """
          ALTER TABLE items_changes ADD COLUMN previous BLOB;
          DROP TRIGGER items_inserted;
          DROP TRIGGER items_updated;
          DROP TRIGGER items_deleted;
          """ + CatalogStore.changeLogTriggers)
    }
    // v10: when each log entry was first past the count the log keeps (seconds since 1970,
    // stamped when the log is next cut, so never earlier than the entry): the log is kept by
    // the one rule of every store, changes and days (`ChangeLogRetention`).
    migrator.registerMigration("v10") { db in
      try db.execute(sql: "ALTER TABLE items_changes ADD COLUMN at INTEGER")
    }
    return migrator
  }()

  /// The size the write-ahead log is cut back to after a checkpoint (4 MiB).
  static let walSizeLimit = 4 << 20

  /// Copies the write-ahead log into the file and empties it (waiting for reads in progress),
  /// then closes: what a server does when it stops, so that it leaves one whole file behind.
  public func checkpointAndClose() throws(StoreError) {
    guard !closed.isSet else { return }
    do {
      try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      }
    } catch {
      throw .failure(path, error)
    }
    try close()
  }

  /// Closes the file; later calls fail with `StoreError.database` ("the catalog is closed").
  public func close() throws(StoreError) {
    do {
      try closed.set(after: { try queue.close() })
    } catch {
      throw .failure(path, error)
    }
  }

  private var closedError: StoreError { .database(path, message: "the catalog is closed") }

  /// Runs `body` in one write transaction, mapping failures to `StoreError`.
  func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
    guard !closed.isSet else { throw closedError }
    do {
      return try queue.write { db in try body(db) }
    } catch let error as StoreError {
      throw error
    } catch let error as CatalogEditError {
      throw .edit(error)
    } catch {
      throw .failure(path, error)
    }
  }

  func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
    guard !closed.isSet else { throw closedError }
    do {
      return try queue.read { db in try body(db) }
    } catch let error as StoreError {
      throw error
    } catch {
      throw .failure(path, error)
    }
  }
}

/// Whether a store was closed, read from any thread.
private final class ClosedFlag: Sendable {
  private let value = Locked(false)

  var isSet: Bool { value.withLock { $0 } }

  /// Runs `close` and sets the flag once it succeeded.
  func set(after close: () throws -> Void) rethrows {
    try close()
    value.withLock { $0 = true }
  }
}
