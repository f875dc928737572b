import Sift
import SiftTestSupport
import Testing

/// The one edit pipeline (`SearchController.commit(_:to:)`): checked, written, then shown.
@Suite("Edit pipeline", .tags(.unit))
struct EditPipelineTests {
  /// A persistence that records what it was asked to write, names new items "n1", "n2"…, and
  /// can refuse everything.
  final class RecordingCatalog: CatalogPersistence {
    struct WriteFailed: Error, Equatable {}

    private(set) var written: [CatalogEdit] = []
    private(set) var namesGiven = 0
    var fails = false

    func makeItemID() throws(WriteFailed) -> ItemID {
      if fails { throw WriteFailed() }
      namesGiven += 1
      return ItemID("n\(namesGiven)")
    }

    func persist(_ edit: CatalogEdit) throws(WriteFailed) {
      if fails { throw WriteFailed() }
      written.append(edit)
    }
  }

  @Test("an edit that does not fit the items is refused before anything is written")
  func refusedBeforeWriting() throws {
    var controller = try Fixtures.activeController(.candies)
    _ = controller.type("choc")
    let rows = Array(controller.rows)
    let catalog = RecordingCatalog()
    let existing = controller.rows[0]
    let attempts: [(CatalogEdit, CatalogEditError)] = [
      (.add(existing, fields: ["name": .text("Copy")]), .duplicateID(existing)),
      (.update(Item(id: "nope", fields: ["name": .text("X")])), .unknownID("nope")),
      (.delete("nope"), .unknownID("nope")),
    ]
    for (edit, expected) in attempts {
      #expect {
        try controller.commit(edit, to: catalog)
      } throws: { error in
        guard let failure = error as? CatalogEditFailure<RecordingCatalog.WriteFailed>,
          case .refused(let reason) = failure
        else { return false }
        return reason == expected
      }
    }
    #expect(catalog.written.isEmpty)
    #expect(catalog.namesGiven == 0)
    #expect(controller.rows == rows)
  }

  @Test("a failed write leaves the rows, facets and indicator as they were")
  func failedWriteChangesNothing() throws {
    var controller = try Fixtures.activeController(.candies)
    _ = controller.type("c")
    let before = (controller.rows, controller.facets, controller.indicator)
    let catalog = RecordingCatalog()
    catalog.fails = true
    let edits: [CatalogEdit] = [
      .add(nil, fields: ["name": .text("Chocolate Coins"), "category": .text("Chocolate")]),
      .add("new", fields: ["name": .text("Chocolate Coins")]),
      .update(Item(id: controller.rows[0], fields: ["name": .text("Renamed")])),
      .delete(controller.rows[1]),
    ]
    for edit in edits {
      #expect(throws: CatalogEditFailure<RecordingCatalog.WriteFailed>.self) {
        try controller.commit(edit, to: catalog)
      }
    }
    #expect(controller.rows == before.0)
    #expect(controller.facets == before.1)
    #expect(controller.indicator == before.2)
    #expect(controller.collection.totalCount == 15)
  }

  @Test("an add without an id is named by the persistence and shown under that name")
  func persistenceNamesNewItems() throws {
    var controller = try Fixtures.activeController(.candies)
    _ = controller.type("zebra")
    let catalog = RecordingCatalog()
    let committed = try controller.commit(
      .add(nil, fields: ["name": .text("Zebra Toffee"), "category": .text("Other")]),
      to: catalog)
    #expect(committed.id == "n1")
    #expect(committed.changes == RowChanges(inserted: [0]))
    #expect(catalog.written == [committed.edit])
    #expect(committed.edit == .add("n1", fields: committed.edit.fields))
    #expect(controller.rows == ["n1"])
  }

  /// Random edits — some refused, some failing to write — through the pipeline while a search
  /// is shown; then what was written is replayed onto the original items, a collection is built
  /// from scratch and filtered the same way: its rows must be the rows shown.
  @Test("what is written, replayed from scratch, gives the rows shown", arguments: [1, 2, 3, 4])
  func replayGivesTheRowsShown(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let document = try Fixtures.document(.products)
    var controller = SearchController(collection: try document.makeCollection())
    controller.send(.focus)
    _ = controller.type(["rose", "red", "c", "20", ""].randomElement(using: &random)!)
    controller.send(.selectScope(Int.random(in: 0..<controller.scopeTitles.count, using: &random)))
    let catalog = RecordingCatalog()
    let words = ["Rose", "Red", "Carnation", "Cherry", "Lily", "Blue", "Candle"]
    var known = document.items.map(\.id)
    for _ in 0..<60 {
      catalog.fails = Int.random(in: 0..<6, using: &random) == 0
      let fields: [String: FieldValue] = [
        "title": .text(
          (0..<Int.random(in: 1...3, using: &random)).map { _ in
            words.randomElement(using: &random)!
          }
          .joined(separator: " ")),
        "year": .number(Double(Int.random(in: 1990...2025, using: &random))),
        "type": .text(["Birthdays", "Weddings", "Funerals"].randomElement(using: &random)!),
      ]
      // Now and then an id that does not fit: a known one for an add, an unknown one otherwise.
      let misfit = Int.random(in: 0..<8, using: &random) == 0
      let target = misfit ? ItemID("ghost") : known.randomElement(using: &random)
      let edit: CatalogEdit
      switch Int.random(in: 0..<3, using: &random) {
      case 0: edit = .add(misfit ? known.first : nil, fields: fields)
      case 1: edit = .update(Item(id: target ?? "ghost", fields: fields))
      default: edit = .delete(target ?? "ghost")
      }
      if let committed = try? controller.commit(edit, to: catalog) {
        switch committed.edit {
        case .add: known.append(committed.id)
        case .update: break
        case .delete(let id): known.removeAll { $0 == id }
        }
      }
    }

    var items = document.items
    for edit in catalog.written {
      switch edit {
      case .add(let id, let fields): items.append(Item(id: id!, fields: fields))
      case .update(let item): items[items.firstIndex { $0.id == item.id }!] = item
      case .delete(let id): items.removeAll { $0.id == id }
      }
    }
    var rebuilt = try CatalogDocument(schema: document.schema, items: items).makeCollection()
    rebuilt.filter(by: controller.criteria)
    #expect(rebuilt.rows == controller.rows)
    #expect(controller.collection.allItems == items)
  }
}

extension CatalogEdit {
  fileprivate var fields: [String: FieldValue] {
    switch self {
    case .add(_, let fields): fields
    case .update(let item): item.fields
    case .delete: [:]
    }
  }
}
