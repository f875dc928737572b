import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// A catalog file's change feed, read as a copy reads it: a snapshot page by page, then the
/// changes page by page, with random edits made between any two reads. Replayed into a copy the
/// way `CatalogSync` writes one, the copy must hold the catalog's items at the catalog's
/// positions (so the same order) and its synonyms — or, for a reader with a filter, exactly the
/// items the filter admits.
@Suite("The change feed of a catalog file", .tags(.unit))
struct ChangeFeedTests {
  /// A served catalog of the products, and a random editor of it.
  struct Served {
    let folder: TemporaryFolder
    let store: CatalogStore
    let catalog: StoredCatalog
    var random: SplitMix64
    var serial = 0

    /// `followsFile`: the catalog reads what others write to its file before each of its
    /// edits (its timer never fires in a test).
    init(seed: UInt64, followsFile: Bool = false) throws {
      folder = try TemporaryFolder()
      let document = try SeedCatalog.products.load()
      _ = try CatalogStore.create(at: folder.file("shop.sqlite"), document: document)
      store = try CatalogStore.open(at: folder.file("shop.sqlite"), concurrentReads: true)
      catalog = try StoredCatalog(
        name: "shop", store: store, warmsUp: false, followsFile: followsFile,
        followInterval: .seconds(3_600))
      random = SplitMix64(seed: seed)
    }

    /// One random edit: an add (numbered or named), a change, a delete, a deleted id added
    /// again (it takes a new place), or new synonyms.
    mutating func edit() async throws {
      serial += 1
      let ids = try store.loadDocument().items.map(\.id)
      let year = Double(1995 + Int.random(in: 0..<30, using: &random))
      let fields: [String: FieldValue] = [
        "title": .text("Edit \(serial) rose"),
        "type": .text(["Birthdays", "Weddings"][serial % 2]),
        "year": .number(year), "price": .number(Double(serial)),
      ]
      switch Int.random(in: 0..<10, using: &random) {
      case 0..<3:
        _ = try await catalog.commit(.add(nil, fields: fields))
      case 3:
        let id = ItemID("named-\(serial % 7)")
        _ = try await catalog.commit(
          ids.contains(id) ? .update(Item(id: id, fields: fields)) : .add(id, fields: fields))
      case 4..<7 where !ids.isEmpty:
        let id = ids[Int.random(in: 0..<ids.count, using: &random)]
        _ = try await catalog.commit(.update(Item(id: id, fields: fields)))
      case 7..<9 where !ids.isEmpty:
        let id = ids[Int.random(in: 0..<ids.count, using: &random)]
        _ = try await catalog.commit(.delete(id))
        if Bool.random(using: &random) {
          _ = try await catalog.commit(.add(id, fields: fields))
        }
      default:
        let word = ["rose", "lily", "tulip"][serial % 3]
        try await catalog.replaceSynonyms(
          Synonyms([Synonyms.Entry(group: [word, "flower \(serial)"])]))
      }
    }
  }

  /// A copy made with the functions `CatalogSync` writes with.
  struct Copy {
    let store: CatalogStore
    var source: SyncSource

    /// Reads the snapshot a page at a time, with `between` run before each page, then the
    /// changes since its first page.
    static func make(
      of served: inout Served, limit: Int, visible: FeedVisibility?,
      between: (inout Served) async throws -> Void
    ) async throws -> Copy {
      var page = try await served.catalog.snapshot(after: nil, limit: limit, visible: visible)
      let first = page
      let store = try CatalogStore.create(
        at: served.folder.file("copy-\(UUID().uuidString).sqlite"),
        document: CatalogDocument(schema: first.schema, items: []))
      while true {
        try store.insertSynced(page.items)
        guard let next = page.next else { break }
        try await between(&served)
        page = try await served.catalog.snapshot(after: next, limit: limit, visible: visible)
        #expect(page.identity == first.identity)
      }
      var copy = Copy(
        store: store,
        source: SyncSource(
          url: "http://test/catalogs/shop", catalog: "shop", identity: first.identity,
          version: first.version, rows: "all"))
      try await copy.catchUp(&served, limit: limit, visible: visible, between: between)
      return copy
    }

    /// Reads the changes since its version a page at a time and applies them all at once.
    @discardableResult
    mutating func catchUp(
      _ served: inout Served, limit: Int, visible: FeedVisibility?,
      between: (inout Served) async throws -> Void
    ) async throws -> SyncReport? {
      var changes: [CatalogChange] = []
      var since = source.version
      while true {
        let answer = try await served.catalog.changes(since: since, limit: limit, visible: visible)
        guard case .page(let page) = answer else {
          Issue.record("a copy at version \(since) was told to start over: \(answer)")
          return nil
        }
        #expect(page.identity == source.identity)
        #expect(page.changes.count <= limit, "a page of at most \(limit) changes")
        #expect(page.changes.map(\.version) == page.changes.map(\.version).sorted())
        changes += page.changes
        guard let next = page.next else {
          source.version = page.version
          break
        }
        since = next
        try await between(&served)
      }
      return try store.applySynced(changes, source: source)
    }
  }

  /// The items in catalog order, each with its position.
  static func positioned(_ store: CatalogStore) throws -> [PositionedItem] {
    var items: [PositionedItem] = []
    var after: Int64?
    while true {
      let page = try store.snapshot(after: after, limit: 1_000, catalog: "x", visible: nil)
      items += page.items
      guard let next = page.next else { return items }
      after = next
    }
  }

  static func expectEqual(
    _ copy: Copy, _ served: Served, visible: FeedVisibility?, _ context: String
  ) throws {
    let expected = try positioned(served.store).filter { visible?($0.item) ?? true }
    let held = try positioned(copy.store)
    #expect(held.count == expected.count, "\(context): \(held.count) items, not \(expected.count)")
    let first = zip(held, expected).first { $0.0 != $0.1 }
    #expect(first == nil, "\(context): first difference \(String(describing: first))")
    #expect(
      try copy.store.loadSchema().synonyms == served.store.loadSchema().synonyms,
      "\(context): synonyms")
    #expect(try copy.store.syncSource()?.version == served.catalog.version, "\(context): version")
  }

  static let adults: FeedVisibility = { ($0["year"]?.number ?? 0) >= 2010 }

  @Test(
    "a copy follows through random edits, made between any two pages, and equals the catalog",
    arguments: [(seed: UInt64(1), limit: 1), (2, 3), (3, 50), (4, 5_000)])
  func followsRandomEdits(seed: UInt64, limit: Int) async throws {
    for filtered in [false, true] {
      var served = try Served(seed: seed)
      defer { served.folder.cleanup() }
      let visible = filtered ? Self.adults : nil
      var edits = SplitMix64(seed: seed &* 31)
      let between: (inout Served) async throws -> Void = { served in
        if Int.random(in: 0..<3, using: &edits) == 0 { try await served.edit() }
      }
      var copy = try await Copy.make(
        of: &served, limit: limit, visible: visible, between: between)
      try Self.expectEqual(copy, served, visible: visible, "first copy, limit \(limit)")
      for round in 1...6 {
        for _ in 0..<Int.random(in: 0...12, using: &served.random) { try await served.edit() }
        try await copy.catchUp(&served, limit: limit, visible: visible, between: between)
        try Self.expectEqual(
          copy, served, visible: visible, "round \(round), limit \(limit), filtered \(filtered)")
      }
    }
  }

  /// An app's model of the copy, on the main actor: the one that applies each report, and one
  /// opened afresh from the file.
  @MainActor final class Follower {
    let url: URL
    var model: SearchModel<Item>
    var reloads = 0

    init(_ url: URL) throws {
      self.url = url
      model = try SearchModel<Item>(catalogAt: url)
    }

    func apply(_ report: SyncReport) throws {
      if !model.apply(report) {
        model = try SearchModel<Item>(catalogAt: url)
        reloads += 1
      }
    }

    /// What each model shows for `text`: the one kept, the one opened afresh (over the index
    /// saved beside the file), and one of the file's items indexed here, the reference.
    func results(_ text: String) throws -> (kept: [ItemID], fresh: [ItemID], built: [ItemID]) {
      let fresh = try SearchModel<Item>(catalogAt: url)
      let store = try CatalogStore.open(at: url)
      defer { try? store.close() }
      let document = try store.loadDocument()
      let built = try SearchModel<Item>(
        document.items, schema: SearchSchema<Item>(document.schema))
      for shown in [model, fresh, built] { shown.text = text }
      return (model.results.map(\.id), fresh.results.map(\.id), built.results.map(\.id))
    }
  }

  @Test(
    "a SearchModel that applies each sync's report shows what a model opened from the copy shows",
    arguments: [false, true])
  func modelFollowsReports(filtered: Bool) async throws {
    var served = try Served(seed: filtered ? 11 : 10)
    defer { served.folder.cleanup() }
    let visible = filtered ? Self.adults : nil
    var copy = try await Copy.make(of: &served, limit: 100, visible: visible) { _ in }
    let follower = try await Follower(copy.store.url)
    for round in 1...8 {
      for _ in 0..<Int.random(in: 1...15, using: &served.random) { try await served.edit() }
      let report = try #require(
        try await copy.catchUp(&served, limit: 100, visible: visible) { _ in })
      try await follower.apply(report)
      for text in ["", "rose", "edit", "red", "lily"] {
        let (kept, fresh, built) = try await follower.results(text)
        #expect(fresh == built, "round \(round), \"\(text)\": the saved index")
        // A tenant's model puts an item that came into its rows at the end, where the file has
        // it at its place: the same items, in the file's order once opened again.
        if filtered {
          #expect(Set(kept) == Set(fresh), "round \(round), \"\(text)\"")
        } else {
          #expect(kept == fresh, "round \(round), \"\(text)\"")
        }
      }
    }
    print(
      "modelFollowsReports(filtered: \(filtered)): \(await follower.reloads) of 8 rounds opened the file again"
    )
  }

  @Test(
    "a put gives the item whole at its position; an item that left a filter is a delete, told only to who could see it"
  )
  func pageContents() async throws {
    let served = try Served(seed: 5)
    defer { served.folder.cleanup() }
    let start = served.catalog.version
    let made = try await served.catalog.commit(
      .add(
        nil, fields: ["title": .text("Moss"), "type": .text("Birthdays"), "year": .number(2020)]))
    _ = try await served.catalog.commit(
      .update(Item(id: made.id, fields: ["title": .text("Moss"), "year": .number(1999)])))
    _ = try await served.catalog.commit(.delete(ItemID("1")))
    guard
      case .page(let page) = try await served.catalog.changes(
        since: start, limit: 100, visible: nil)
    else {
      Issue.record("no page")
      return
    }
    #expect(page.version == start + 3)
    #expect(page.next == nil)
    #expect(
      page.changes == [
        .put(
          Item(id: made.id, fields: ["title": .text("Moss"), "year": .number(1999)]),
          at: Int64(try SeedCatalog.products.load().items.count), version: start + 2),
        .delete(ItemID("1"), version: start + 3),
      ])
    // Moss came and left the filter, Ginger (2007) was never in it: a reader of 2010 and later
    // was never told of either, so it is not told of their deletes. Poinsettia Red (2010)
    // leaving it and Poinsettia Pink (2011) deleted are deletes for it.
    _ = try await served.catalog.commit(
      .update(Item(id: "12", fields: ["title": .text("Poinsettia Red"), "year": .number(2000)])))
    _ = try await served.catalog.commit(.delete(ItemID("13")))
    guard
      case .page(let filtered) = try await served.catalog.changes(
        since: start, limit: 100, visible: Self.adults)
    else {
      Issue.record("no page")
      return
    }
    #expect(filtered.changes.allSatisfy { $0.put == nil })
    #expect(filtered.changes.compactMap(\.delete) == [ItemID("12"), ItemID("13")])
  }

  @Test("synonyms move the version, come in the feed, and an open after them replays nothing")
  func synonymsAreChanges() async throws {
    let served = try Served(seed: 6)
    defer { served.folder.cleanup() }
    let start = served.catalog.version
    let synonyms = Synonyms([Synonyms.Entry(group: ["rose", "flower"])])
    let version = try await served.catalog.replaceSynonyms(synonyms)
    #expect(version == start + 1)
    #expect(served.catalog.version == version)
    guard
      case .page(let page) = try await served.catalog.changes(
        since: start, limit: 10, visible: nil)
    else {
      Issue.record("no page")
      return
    }
    #expect(page.changes == [.synonyms(synonyms, pins: Pins(), version: version)])
    _ = try served.store.saveIndex(
      served.catalog.collection.index, builtAtGeneration: start)
    let reopened = try CatalogStore.open(at: served.folder.file("shop.sqlite"))
    let (collection, report) = try reopened.openCollection()
    #expect(report.notice == nil, "\(report.notice ?? "")")
    #expect(collection.schema.synonyms == synonyms)
  }

  @Test("pins move the version, come in the feed with the synonyms, and an open reads them back")
  func pinsAreChanges() async throws {
    let served = try Served(seed: 8)
    defer { served.folder.cleanup() }
    let start = served.catalog.version
    // "rose" finds Red Rose (14) and White Rose (15); Ginger (1) is no rose.
    let (first, second): (ItemID, ItemID) = ("14", "1")
    var pins = Pins()
    pins.pin(second, at: 1, for: "Rose ")
    pins.hide(first, for: "rose")
    let version = try await served.catalog.replacePins(pins)
    #expect(version == start + 1 && served.catalog.version == version)
    guard
      case .page(let page) = try await served.catalog.changes(
        since: start, limit: 10, visible: nil)
    else {
      Issue.record("no page")
      return
    }
    #expect(page.changes == [.synonyms(Synonyms(), pins: pins, version: version)])
    // The feed as JSON carries them, and reads back the same.
    let read = try ChangeFeedPage(json: try JSONValue.parse(Data(page.jsonBytes)))
    #expect(read.changes == page.changes)
    let answer = try await served.catalog.search(
      try SearchRequest(SearchRequestInput(text: "ROSE"), schema: served.catalog.schema),
      page: PageRequest(limit: 3))
    #expect(answer.results.map(\.item.id) == [second, "15"])
    let reopened = try CatalogStore.open(at: served.folder.file("shop.sqlite"))
    #expect(try reopened.loadSchema().pins == pins)
    // A reader framed to some rows (a tenant) learns only the pins of those: never the ids of
    // rows it cannot see.
    let funerals: FeedVisibility = { $0["type"]?.displayText == "Funerals" }
    guard
      case .page(let framed) = try await served.catalog.changes(
        since: start, limit: 10, visible: funerals)
    else {
      Issue.record("no page")
      return
    }
    #expect(framed.changes.first?.pins?.entries.map(\.id) == [first])
    let snapshot = try await served.catalog.snapshot(after: nil, limit: 100, visible: funerals)
    #expect(snapshot.schema.pins.entries.map(\.id) == [first])
    #expect(
      try await served.catalog.snapshot(after: nil, limit: 100, visible: nil).schema.pins == pins)
  }

  @Test("an index save cuts a file's log by the retention its store was given (sift serve's)")
  func indexSaveCutsByTheStoresRetention() async throws {
    var served = try Served(seed: 11)
    defer { served.folder.cleanup() }
    for _ in 0..<12 { try await served.edit() }
    let now = served.catalog.version
    let store = served.store
    let start = { () throws -> Int64 in
      try store.read { db in try CatalogStore.feedState(db, path: "").logStart }
    }
    let before = try start()
    // The default keeps 100,000 changes: a save cuts nothing of twelve.
    #expect(try served.store.saveIndex(served.catalog.collection.index, builtAtGeneration: now))
    #expect(try start() == before)
    served.store.retention = ChangeLogRetention(changes: 4, days: 0)
    #expect(try served.store.saveIndex(served.catalog.collection.index, builtAtGeneration: now))
    #expect(try start() == now - 4)
    if case .page(let page) = try await served.catalog.changes(
      since: now - 4, limit: 10, visible: nil)
    {
      #expect(page.version == now)
    } else {
      Issue.record("the last four changes should still be in the log")
    }
  }

  @Test(
    "a copy must start over from a version past the catalog's, before its log, or before an import")
  func startOver() async throws {
    var served = try Served(seed: 7)
    defer { served.folder.cleanup() }
    for _ in 0..<20 { try await served.edit() }
    let now = served.catalog.version
    func reason(since version: Int64) async throws -> String? {
      if case .startOver(let reason, _, let at) = try await served.catalog.changes(
        since: version, limit: 10, visible: nil)
      {
        #expect(try at == served.store.itemsGeneration())
        return reason
      }
      return nil
    }
    #expect(
      try await reason(since: now + 5)
        == "since: version \(now + 5) is past catalog shop's version \(now): it is another catalog, or was restored from an older copy"
    )
    #expect(try await reason(since: now - 10) == nil)
    // The rule of every store: past the count kept, but younger than the days kept, stays.
    try served.store.trimLog(ChangeLogRetention(changes: 5, days: 1))
    #expect(try await reason(since: now - 10) == nil)
    try served.store.trimLog(ChangeLogRetention(changes: 5, days: 0))
    #expect(
      try await reason(since: now - 10)
        == "since: version \(now - 10) is older than the log catalog shop keeps, which starts after version \(now - 5)"
    )
    #expect(try await reason(since: now - 5) == nil)
    let file = try served.folder.write(
      "more.jsonl", #"{"title": "Fern", "type": "Birthdays"}"# + "\n")
    _ = try CatalogImporter.run(
      file: file, into: served.folder.file("shop.sqlite"), spec: ImportSpec(titleField: "title"))
    let imported = try served.store.itemsGeneration()
    #expect(
      try await reason(since: now)
        == "since: version \(now) is older than the log catalog shop keeps, which starts after version \(imported)"
    )
    // The import wrote its rows without logging them; edits after it are logged again.
    _ = try await served.catalog.commit(.add(nil, fields: ["title": .text("After the import")]))
    #expect(try served.store.itemsGeneration() == imported + 1)
    #expect(try await reason(since: imported) == nil)
  }

  @Test("a file made again has another identity")
  func identity() async throws {
    let one = try Served(seed: 8)
    let two = try Served(seed: 8)
    defer {
      one.folder.cleanup()
      two.folder.cleanup()
    }
    let first = try await one.catalog.snapshot(after: nil, limit: 1, visible: nil)
    let second = try await two.catalog.snapshot(after: nil, limit: 1, visible: nil)
    // The file's own identity, then which file it is on its disk (a copy is another).
    #expect(first.identity.split(separator: ".").first?.count == 32)
    #expect(first.identity.split(separator: ".").count == 2)
    #expect(first.identity != second.identity)
    #expect(first.items.count == 1 && first.next == first.items[0].position)
  }
}
