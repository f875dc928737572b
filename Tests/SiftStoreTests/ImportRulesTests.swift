import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// `CatalogImport` applies the import's rules to items in memory (a catalog in PostgreSQL);
/// a .sqlite catalog applies them in SQL. Both must leave the same catalog.
@Suite("The import's rules, in memory and in SQLite", .tags(.unit))
struct ImportRulesTests {
  /// One import after another into the same catalog: fields added along the way, one import
  /// without ids (all added), one without the category (it stays the catalog's), one that
  /// merges, one that searches a field kept until then, and one with no flags but the title.
  static let specs = [
    ImportSpec(titleField: "name", numberFields: ["price"], categoryField: "kind", idField: "id"),
    ImportSpec(titleField: "name", textFields: ["notes"], categoryField: "kind"),
    ImportSpec(
      titleField: "name", textFields: ["notes"], numberFields: ["rank"], idField: "id",
      merges: true),
    ImportSpec(
      titleField: "name", numberFields: ["price"], categoryField: "kind", idField: "id",
      rankingField: RankingField(parsing: "rank:desc")),
    ImportSpec(titleField: "name", numberFields: ["weight"], idField: "id", merges: true),
    ImportSpec(titleField: "", labels: ["colour": "Colour", "weight": "Weight (g)"]),
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
      // Fields no flag names: kept, as numbers while every value is one.
      if Bool.random(using: &random) { fields["colour"] = .text("c\(random.next() % 5)") }
      if Bool.random(using: &random) { fields["weight"] = .number(Double(random.next() % 90)) }
      if random.next() % 4 == 0 { fields["tags"] = .texts(["t\(random.next() % 3)", "u"]) }
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
      // Written a batch at a time, as a file is: the same as the rules applied to them all.
      let batch = 1 + Int(random.next() % 16)
      let inSQL = try store.importRecords(spec: spec) { write in
        for start in stride(from: 0, to: records.count, by: batch) {
          try write(Array(records[start..<min(records.count, start + batch)]))
        }
      }
      let (document, summary) = try CatalogImport.apply(records, spec: spec, to: memory)
      memory = document
      #expect(summary == inSQL, "round \(round)")
      #expect(
        memory.schema.storedFields.map(\.name)
          == (round < 4 ? ["colour", "tags", "weight"] : ["colour", "tags"]), "round \(round)")
      let stored = try store.loadDocument()
      #expect(stored.schema == memory.schema, "round \(round)")
      #expect(stored.items.map(\.id) == memory.items.map(\.id), "round \(round)")
      #expect(stored.items == memory.items, "round \(round)")
    }
    #expect(
      memory.schema.fields.map(\.name) == ["name", "price", "kind", "notes", "rank", "weight"])
    #expect(memory.schema.fields.last?.label == "Weight (g)")
    #expect(memory.schema.storedFields.first?.label == "Colour")
  }

  @Test("a known id is replaced whole; with merges it keeps the fields the record lacks")
  func replaceOrMerge() throws {
    let spec = ImportSpec(titleField: "name", numberFields: ["price"], idField: "id")
    let first = [
      ImportRecord(
        line: 1, id: "1",
        fields: ["name": .text("Rose"), "price": .number(3), "colour": .text("red")])
    ]
    let schema = CatalogImport.newSchema(name: "rules", spec: spec)
    let (created, _) = try CatalogImport.apply(
      first, spec: spec, to: CatalogDocument(schema: schema, items: []))
    let second = [ImportRecord(line: 1, id: "1", fields: ["name": .text("Rosa")])]
    let replaced = try CatalogImport.apply(second, spec: spec, to: created).document
    #expect(replaced.items == [Item(id: "1", fields: ["name": .text("Rosa")])])
    var merging = spec
    merging.merges = true
    let merged = try CatalogImport.apply(second, spec: merging, to: created).document
    #expect(
      merged.items == [
        Item(id: "1", fields: ["name": .text("Rosa"), "price": .number(3), "colour": .text("red")])
      ])
    // Merging a record without a title: fine for a known item, refused for a new one.
    let untitled = [ImportRecord(line: 7, id: "2", fields: ["price": .number(1)])]
    #expect(throws: ImportSchemaError.untitled(line: 7, field: "name")) {
      try CatalogImport.apply(untitled, spec: merging, to: created)
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
