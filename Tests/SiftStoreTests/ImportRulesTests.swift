import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// `CatalogImport` applies the import's rules to items in memory (a catalog in PostgreSQL);
/// a .sqlite catalog applies them in SQL. Both must leave the same catalog.
@Suite("The import's rules, in memory and in SQLite")
struct ImportRulesTests {
  /// One import after another into the same catalog: fields added along the way, one import
  /// without ids (all added), one without the category (updates keep it).
  static let specs = [
    ImportSpec(titleField: "name", numberFields: ["price"], categoryField: "kind", idField: "id"),
    ImportSpec(titleField: "name", textFields: ["notes"], categoryField: "kind"),
    ImportSpec(titleField: "name", textFields: ["notes"], numberFields: ["rank"], idField: "id"),
    ImportSpec(
      titleField: "name", numberFields: ["price"], categoryField: "kind", idField: "id",
      rankingField: RankingField(parsing: "rank:desc")),
  ]

  /// Random records for `spec`: some with ids that repeat earlier imports', some with numeric
  /// ids an allocator must skip, some without; a category from few or many values.
  static func records(
    _ spec: ImportSpec, count: Int, kinds: Int, using random: inout SplitMix64
  ) -> [ImportRecord] {
    var seen: Set<String> = []
    return (0..<count).compactMap { line -> ImportRecord? in
      var fields: [String: FieldValue] = ["name": .text("item \(random.next() % 50)")]
      for field in spec.textFields where Bool.random(using: &random) {
        fields[field] = .texts(["a", "b \(random.next() % 9)"])
      }
      for field in spec.numberFields where Bool.random(using: &random) {
        fields[field] = .number(Double(random.next() % 100))
      }
      if let kind = spec.categoryField, random.next() % 5 != 0 {
        fields[kind] = .text(random.next() % 7 == 0 ? "" : "k\(random.next() % UInt64(kinds))")
      }
      var id: ItemID?
      if spec.idField != nil {
        let raw =
          random.next() % 3 == 0 ? "x\(random.next() % 20)" : "\(random.next() % 30)"
        // A file may not give one id twice.
        guard seen.insert(raw).inserted else { return nil }
        id = ItemID(raw)
      }
      return ImportRecord(line: line + 1, id: id, fields: fields)
    }
  }

  @Test("imports in a row: the same schema, items and order", arguments: [30_100, 30_101, 30_102])
  func sameCatalog(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let url = folder.file("rules.sqlite")
    let schema = CatalogImport.newSchema(name: "rules", spec: Self.specs[0])
    let store = try CatalogStore.create(
      at: url, document: CatalogDocument(schema: schema, items: []))
    defer { try? store.close() }
    var memory = CatalogDocument(schema: schema, items: [])
    for (round, spec) in Self.specs.enumerated() {
      // Few kinds make a scope bar, many a list of tokens; the last round crosses over.
      let records = Self.records(
        spec, count: 40, kinds: round == Self.specs.count - 1 ? 12 : 4, using: &random)
      let inSQL = try store.importRecords(records, spec: spec)
      let (document, summary) = try CatalogImport.apply(records, spec: spec, to: memory)
      memory = document
      #expect(summary == inSQL, "round \(round)")
      let stored = try store.loadDocument()
      #expect(stored.schema == memory.schema, "round \(round)")
      #expect(stored.items.map(\.id) == memory.items.map(\.id), "round \(round)")
      #expect(stored.items == memory.items, "round \(round)")
    }
  }

  @Test("a title, category or kind other than the catalog's is refused, naming the field")
  func refusals() throws {
    let spec = Self.specs[0]
    let schema = CatalogImport.newSchema(name: "rules", spec: spec)
    let refused: [(ImportSpec, String)] = [
      (ImportSpec(titleField: "title"), "the catalog's title field is \"name\", not \"title\""),
      (
        ImportSpec(titleField: "name", categoryField: "shelf"),
        "the catalog's category field is \"kind\", not \"shelf\""
      ),
      (
        ImportSpec(titleField: "name", textFields: ["price"]),
        "field \"price\" is a number field in the catalog, not text"
      ),
    ]
    for (other, message) in refused {
      #expect(throws: ImportSchemaError.incompatible(message)) {
        try CatalogImport.merged(schema, with: other)
      }
    }
  }

  @Test("new ids: the next number after the largest, skipping those taken")
  func allocator() {
    var allocator = ItemIDAllocator(ids: ["3", "x9", "11abc", "", "007"])
    #expect(allocator.next { $0 == "12" } == "13")
    #expect(allocator.next { _ in false } == "14")
    var empty = ItemIDAllocator(ids: [String]())
    #expect(empty.next { _ in false } == "1")
  }
}
