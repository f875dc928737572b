import Foundation
import GRDB
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

@Suite("Catalog files", .tags(.unit))
struct CatalogStoreTests {
  @Test("a new catalog is versioned, marked as Sift's and in WAL mode")
  func format() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("candies.sqlite"), document: try BuiltInCatalog.candies.load())
    let (applicationID, journal, migrations) = try store.queue.read { db in
      (
        try Int32.fetchOne(db, sql: "PRAGMA application_id"),
        try String.fetchOne(db, sql: "PRAGMA journal_mode"),
        try CatalogStore.migrator.completedMigrations(db)
      )
    }
    #expect(applicationID == CatalogStore.applicationID)
    #expect(journal == "wal")
    #expect(migrations == ["v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10"])
    #expect(try store.itemCount() == 15)
    let document = try store.loadDocument()
    #expect(document == (try BuiltInCatalog.candies.load()))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
      .filter { $0.hasSuffix(".creating") }
    #expect(leftovers.isEmpty)
  }

  @Test("items read as of a generation are as they were then, from the log; without one, as now")
  func itemsAsOfGeneration() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let store = try CatalogStore.create(
      at: folder.file("candies.sqlite"), document: try BuiltInCatalog.candies.load())
    let schema = try store.loadDocument().schema
    let ids = try store.loadDocument().items.prefix(3).map(\.id)
    let before = try store.items(withIDs: ids, fields: schema.allFields, asOf: nil)
    let generation = try store.itemsGeneration()
    var changed = try #require(before[0])
    changed.fields[schema.titleField] = .text("Changed twice")
    try store.update(changed)
    changed.fields[schema.titleField] = .text("Changed again")
    try store.update(changed)
    try store.delete(id: ids[1])
    #expect(try store.itemsGeneration() == generation + 3)
    // As the search of that generation saw them: once, whatever came after.
    #expect(try store.items(withIDs: ids, fields: schema.allFields, asOf: generation) == before)
    let now = try store.items(withIDs: ids, fields: schema.allFields, asOf: nil)
    #expect(now == [changed, nil, before[2]])
    // Past the log's start the log cannot tell: the items as the file holds them.
    try store.trimLog(ChangeLogRetention(changes: 0, days: 0))
    #expect(try store.items(withIDs: ids, fields: schema.allFields, asOf: generation) == now)
  }

  @Test("a database failure keeps SQLite's message and extended result code, and compares")
  func databaseFailure() {
    let full = DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full")
    #expect(
      StoreError.failure("/tmp/c.sqlite", full)
        == .database("/tmp/c.sqlite", message: "database or disk is full", resultCode: 13))
    let readonly = DatabaseError(resultCode: .SQLITE_READONLY_DBMOVED)
    guard case .database(_, _, let code) = StoreError.failure("c", readonly) else {
      Issue.record("not a database failure")
      return
    }
    #expect(code == ResultCode.SQLITE_READONLY_DBMOVED.rawValue)
    #expect(code != ResultCode.SQLITE_READONLY.rawValue, "the extended code, not the primary")
    let edit = StoreError.edit(.unknownID("7"))
    #expect(StoreError.failure("c", edit) == edit, "a StoreError passes through unchanged")
    #expect(
      StoreError.failure("c", CocoaError(.fileNoSuchFile)).description.hasPrefix("c: "),
      "other failures keep their description and the path")
  }

  @Test("every kind of value survives the round trip")
  func values() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let schema = CatalogSchema(
      name: "things", fields: [.text("title"), .text("tags"), .number("n"), .category("kind")],
      titleField: "title", categoryField: "kind", scopes: [.all(), .category("A")])
    let items = [
      Item(
        id: "a",
        fields: [
          "title": .text("Ünïcödé 서울 👍🏽"), "tags": .texts(["x", "", "y\u{0}z"]), "n": .number(-1.5),
          "kind": .text("A"),
        ]),
      Item(id: "b", fields: ["title": .text(""), "tags": .texts([]), "n": .number(2e20)]),
      Item(id: "c", fields: ["title": .text("only a title")]),
    ]
    let store = try CatalogStore.create(
      at: folder.file("t.sqlite"), document: CatalogDocument(schema: schema, items: items))
    #expect(try store.loadDocument() == CatalogDocument(schema: schema, items: items))
  }

  @Test("random lists of strings round-trip through the BLOB codec")
  func textListCodec() {
    var generator = SplitMix64(seed: 76)
    for _ in 0..<500 {
      let strings = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
        String(
          (0..<Int.random(in: 0...300, using: &generator)).map { _ in
            Character(Unicode.Scalar(UInt32.random(in: 0x20...0x7FF, using: &generator))!)
          })
      }
      let bytes = TextListCodec.encode(strings)
      #expect(bytes.withUnsafeBytes { TextListCodec.decode($0) } == strings)
    }
    #expect([UInt8]([5, 1]).withUnsafeBytes { TextListCodec.decode($0) } == nil)
  }

  @Test(
    "files that are not Sift catalogs are refused and left byte for byte",
    arguments: [
      "text", "empty", "foreign", "newer",
    ])
  func refusesForeignFiles(_ kind: String) throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("x.sqlite")
    switch kind {
    case "text":
      try Data("hello, not a database\n".utf8).write(to: url)
    case "empty":
      try Data().write(to: url)
    case "foreign":
      let queue = try DatabaseQueue(path: url.path)
      try queue.write { db in
        try db.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')")
      }
      try queue.close()
    default:
      let store = try CatalogStore.create(
        at: url, document: try BuiltInCatalog.meals.load())
      try store.queue.write { db in
        try db.execute(
          sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
      }
      try store.close()
    }
    let before = try Data(contentsOf: url)
    let siblings = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect {
      _ = try CatalogStore.open(at: url)
    } throws: { error in
      let description = "\(error)"
      switch kind {
      case "foreign": return description.contains("another application")
      case "newer": return description.contains("newer version of Sift")
      default: return description.contains("not an SQLite database")
      }
    }
    #expect(try Data(contentsOf: url) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == siblings)
  }

  /// The file a crash leaves in the middle of a checkpoint: the main file's first page already
  /// copied from the log (its header counting pages the main file does not hold yet), the rest
  /// still only in the `-wal`. SQLite reads it whole through the log; the check that inspects a
  /// file before opening it must read the log too (it once said "not an SQLite database").
  @Test("a catalog killed in the middle of a checkpoint opens with every edit")
  func killedMidCheckpoint() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let live = folder.file("live.sqlite")
    _ = try CatalogStore.create(at: live, document: try BuiltInCatalog.candies.load())
    let pool = try DatabasePool(path: live.path)
    try pool.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
    }
    // Enough rows that the file grows by many pages, all of them still in the log.
    let filler = String(repeating: "x", count: 3_000)
    for number in 0..<200 {
      try pool.write { db in
        try db.execute(
          sql: "INSERT INTO items (id, position, \(CatalogStore.column("name"))) VALUES (?, ?, ?)",
          arguments: ["extra\(number)", 1_000 + number, "Extra \(number) \(filler)"])
      }
    }
    // The crash image: the main file and its log as they are, with page 1 taken from its last
    // frame in the log, as a checkpoint that wrote it first and then died would leave it.
    let crashed = folder.file("crashed.sqlite")
    try FileManager.default.copyItem(at: live, to: crashed)
    let log = try Data(contentsOf: URL(fileURLWithPath: live.path + "-wal"))
    try log.write(to: URL(fileURLWithPath: crashed.path + "-wal"))
    try pool.close()
    let pageSize = Int(log[8]) << 24 | Int(log[9]) << 16 | Int(log[10]) << 8 | Int(log[11])
    var lastFirstPage: Data?
    var offset = 32
    while offset + 24 + pageSize <= log.count {
      let page = log[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
      if page == 1 { lastFirstPage = log[offset + 24..<offset + 24 + pageSize] }
      offset += 24 + pageSize
    }
    let firstPage = try #require(lastFirstPage)
    let handle = try FileHandle(forWritingTo: crashed)
    try handle.write(contentsOf: firstPage)
    try handle.close()
    let claimed = firstPage[firstPage.startIndex + 28..<firstPage.startIndex + 32].reduce(0) {
      $0 << 8 | Int($1)
    }
    let held = try FileManager.default.attributesOfItem(atPath: crashed.path)[.size] as? Int ?? 0
    #expect(claimed * pageSize > held, "the header must count pages only the log holds")

    let reopened = try CatalogStore.open(at: crashed)
    #expect(try reopened.itemCount() == 215)
    #expect(try reopened.loadSchema().name == (try BuiltInCatalog.candies.load().schema.name))
  }

  @Test(
    "a built-in catalog is copied on first use; edits persist, the shipped data does not change")
  func builtInCopy() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let location = try CatalogLocation("meals")
    #expect(location == .builtIn(.meals))
    var session = try CatalogSession(store: try location.open(dataDirectory: folder.url))
    #expect(FileManager.default.fileExists(atPath: folder.file("meals.sqlite").path))
    let (id, _) = try session.add(fields: ["name": .text("Soup"), "rating": .number(2)])
    #expect(id == "4")
    try session.store.close()
    let reopened = try location.open(dataDirectory: folder.url)
    #expect(
      try reopened.titles() == [
        "Caprese Salad", "Chicken and Potatoes", "Pasta with Meatballs", "Soup",
      ])
    #expect(try BuiltInCatalog.meals.load().items.count == 3)
  }

  @Test(
    "catalog names and paths",
    arguments: [
      ("products", true), ("cities.sqlite", false), ("./x", false), ("sweets", nil),
    ] as [(String, Bool?)])
  func locations(_ argument: String, _ builtIn: Bool?) {
    let location = try? CatalogLocation(argument)
    switch builtIn {
    case .some(true): #expect(location == .builtIn(.products))
    case .some(false): #expect(location == .file(URL(fileURLWithPath: argument)))
    case .none:
      #expect(location == nil)
      #expect(throws: CatalogLocationError.unknownCatalog("sweets")) {
        try CatalogLocation(argument)
      }
    }
  }

  @Test("an add is numbered from the index of numeric ids, also in a file of the fourth format")
  func numberingFromTheIndex() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("meals.sqlite")
    let store = try CatalogStore.create(at: url, document: try BuiltInCatalog.meals.load())
    try store.add(Item(id: "41", fields: ["name": .text("Soup")]))
    try store.add(Item(id: "9x", fields: ["name": .text("Salad")]))
    // Back to the fourth format: no index of numeric ids.
    try store.queue.write { db in
      try db.execute(
        sql: """
          DROP INDEX items_by_number;
          DELETE FROM grdb_migrations WHERE identifier IN ('v5', 'v6');
          """)
    }
    try store.close()
    let upgraded = try CatalogStore.open(at: url)
    let plan = try upgraded.queue.read { db in
      try Row.fetchAll(
        db,
        sql: """
          EXPLAIN QUERY PLAN SELECT max(CAST(id AS INTEGER)) FROM items WHERE id GLOB '[0-9]*'
          """
      ).map { $0["detail"] as String? ?? "" }
    }
    #expect(plan.contains { $0.contains("items_by_number") }, "\(plan)")
    #expect(try upgraded.makeItemID() == "42")
    try upgraded.add(Item(id: "100", fields: ["name": .text("Stew")]))
    #expect(try upgraded.makeItemID() == "101")
  }
}
