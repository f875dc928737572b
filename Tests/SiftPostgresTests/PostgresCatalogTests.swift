#if Server
import Foundation
import Sift
import SiftPostgres
import SiftStore
import SiftTestSupport
import Testing

/// A catalog in PostgreSQL as the truth: its edits, its change log and its upgrades. (Searches
/// are the nodes' — `NodeTests`, `ServedEquivalenceTests`.)
@Suite(
  "A catalog in PostgreSQL keeps its items and the order of their changes", .serialized,
  .tags(.postgres), .needs("psql"))
struct PostgresCatalogTests {
  static func seed(_ catalog: SeedCatalog) throws -> CatalogDocument { try catalog.load() }

  /// The cities sample in PostgreSQL as an older Sift left it: written now, then taken back by
  /// `downgrade` (SQL given the quoted schema name). Returns the document, the cluster, the
  /// address and the quoted schema name.
  static func olderCities(
    _ name: String, downgrade: (String) -> String
  ) async throws -> (CatalogDocument, PostgresCluster, PostgresAddress, String) {
    let document = try cities()
    let cluster = try PostgresCluster.shared()
    let address = try PostgresAddress(cluster.address(catalog: name))
    try await PostgresCatalog.replace(address, with: document)
    let schema = "\"\(address.schemaName)\""
    _ = try cluster.psql(downgrade(schema))
    return (document, cluster, address, schema)
  }

  /// The catalog's format as this Sift writes it: an older one was upgraded on open.
  static func expectCurrentFormat(_ cluster: PostgresCluster, _ schema: String) throws {
    let format = try cluster.psql("SELECT format FROM \(schema).catalog")
    #expect(format.trimmingCharacters(in: .whitespacesAndNewlines) == "\(PostgresCatalog.format)")
  }

  /// The cities sample (2,955 cities, names in many scripts) as `sift import` reads it;
  /// `located`: with `--location latitude,longitude`.
  static func cities(located: Bool = false) throws -> CatalogDocument {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-pg-cities-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Fixtures/cities-sample.jsonl")
    let catalog = folder.appendingPathComponent("cities.sqlite")
    _ = try CatalogImporter.run(
      file: file, into: catalog,
      spec: ImportSpec(
        titleField: "name", textFields: ["alternates"], numberFields: ["population"],
        categoryField: "country", idField: "id", rankingField: RankingField(parsing: "population"),
        location: located ? LocationFields(latitude: "latitude", longitude: "longitude") : nil))
    let store = try CatalogStore.open(at: catalog)
    defer { try? store.close() }
    return try store.loadDocument()
  }

  /// Random queries made of the catalog's own words: whole words, beginnings, pieces from
  /// inside, misspellings, two words, phrases, negations, numbers and number filters — with
  /// random tokens and scopes.
  static func randomInput(
    _ document: CatalogDocument, using random: inout SplitMix64
  ) -> SearchRequestInput {
    let schema = document.schema
    let textFields = schema.fields.filter { $0.kind == .text }
    let numberFields = schema.fields.filter { $0.kind == .number }
    // Most terms come from one item, so queries of several terms still find something.
    let target = document.items.randomElement(using: &random)!
    func word() -> String {
      let item =
        Int.random(in: 0..<4, using: &random) == 0
        ? document.items.randomElement(using: &random)! : target
      let field = textFields.randomElement(using: &random)!
      let text = item[field.name]?.displayText ?? "x"
      let words = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
      return words.randomElement(using: &random) ?? "x"
    }
    func term() -> String {
      let whole = word()
      switch Int.random(in: 0..<12, using: &random) {
      case 0, 1: return whole
      case 2, 3: return String(whole.prefix(Int.random(in: 1...4, using: &random)))
      case 4:
        let characters = Array(whole)
        let start = Int.random(in: 0..<characters.count, using: &random)
        return String(characters[start..<min(characters.count, start + 3)])
      case 5, 6:
        // A misspelling: one letter changed, dropped or swapped with the next.
        var characters = Array(whole.lowercased())
        guard characters.count >= 4 else { return whole }
        let at = Int.random(in: 1..<characters.count - 1, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: characters[at] = "xqzk".randomElement(using: &random)!
        case 1: characters.remove(at: at)
        default: characters.swapAt(at, at + 1)
        }
        return String(characters)
      case 7: return "\"\(word()) \(String(word().prefix(2)))\""
      case 8: return "-" + String(whole.prefix(2))
      case 9:
        guard let field = numberFields.randomElement(using: &random),
          let value = document.items.randomElement(using: &random)?[field.name],
          case .number(let number) = value
        else { return whole }
        let shown = FieldValue.format(number)
        return [
          "\(field.name):<\(shown)", "\(field.name):>=\(shown)", shown, "-\(field.name):\(shown)",
        ]
        .randomElement(using: &random)!
      case 10: return whole.uppercased()
      default: return String(whole.dropFirst())
      }
    }
    // A third finished with a space: ranked as finished words, not as a word being typed.
    let text =
      (0..<Int.random(in: 1...3, using: &random)).map { _ in term() }.joined(separator: " ")
      + (Int.random(in: 0..<3, using: &random) == 0 ? " " : "")
    // Now and then a token: the target's category or any suggested one.
    var tokens: [String] = []
    if Int.random(in: 0..<5, using: &random) == 0, let field = schema.categoryField,
      let category = target[field]?.displayText
    {
      tokens.append("\(field):\(category)")
    }
    if Int.random(in: 0..<6, using: &random) == 0,
      let token = schema.suggestedTokens.randomElement(using: &random)
    {
      tokens.append(token.identifier)
    }
    let scope =
      schema.scopeTitles.isEmpty || Bool.random(using: &random)
      ? nil : schema.scopeTitles.randomElement(using: &random)
    return SearchRequestInput(text: text, scope: scope, tokens: tokens)
  }

  @Test(
    "an older catalog (format 6: folded columns, words, letters, no log) is upgraded on open to its items and a change log"
  )
  func upgradeToTheChangeLog() async throws {
    let (document, cluster, address, s) = try await Self.olderCities("log_upgrade") { s in
      // As format 6 left a catalog: what SQL searches read beside the items, and no log.
      """
      DROP TABLE \(s).changes;
      ALTER TABLE \(s).catalog DROP COLUMN identity, DROP COLUMN log_start;
      CREATE FUNCTION \(s).words(t text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
        SELECT regexp_split_to_array(t, ' ') $$;
      ALTER TABLE \(s).items ADD COLUMN t0 text NOT NULL DEFAULT '', ADD COLUMN k0 text,
        ADD COLUMN w0 text[] GENERATED ALWAYS AS (\(s).words(t0)) STORED,
        ADD COLUMN lh integer NOT NULL DEFAULT 0, ADD COLUMN category text;
      CREATE INDEX items_category ON \(s).items (category);
      CREATE TABLE \(s).words (word text PRIMARY KEY);
      CREATE TABLE \(s).letters (letter smallint NOT NULL);
      CREATE TABLE \(s).letter_counts (letter smallint NOT NULL);
      UPDATE \(s).catalog SET format = 6, generation = 41;
      """
    }
    // Two processes opening it at once upgrade it once.
    async let first = PostgresCatalog.open(address)
    async let second = PostgresCatalog.open(address)
    let (catalog, other) = try await (first, second)
    await other.close()
    try Self.expectCurrentFormat(cluster, s)
    let columns = try cluster.psql(
      "SELECT string_agg(column_name, ',' ORDER BY column_name) FROM information_schema.columns WHERE table_schema = '\(address.schemaName)' AND table_name = 'items'"
    )
    #expect(columns.trimmingCharacters(in: .whitespacesAndNewlines) == "fields,id,ord,vector")
    let tables = try cluster.psql(
      "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = '\(address.schemaName)'"
    )
    #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "catalog,changes,items")
    let (state, before) = try await catalog.changes(after: 0)
    #expect(state.version == 41 && state.logStart == 41 && before.isEmpty)
    #expect(try await catalog.document() == document)
    let item = document.items[0]
    let saved = try await catalog.commit(.update(item))
    #expect(saved == CatalogCommit(id: item.id, version: 42))
    let (_, after) = try await catalog.changes(after: 41)
    #expect(after.map(\.version) == [42])
    #expect(after.first?.item == item)
    await catalog.close()
  }

  @Test(
    "vectors are kept as bytes beside the JSON, read back as the same floats; format 9's, in the JSON, move there on open"
  )
  func vectorsAsBytes() async throws {
    var document = try Self.seed(.products)
    let seed: UInt64 = 7_210
    print("vectors as bytes: seed \(seed)")
    var random = SplitMix64(seed: seed)
    func vector() -> [Float] {
      // Floats of every size, whose shortest forms are long: what a model makes.
      (0..<5).map { _ in
        Float(bitPattern: UInt32.random(in: 0x3000_0000...0x4200_0000, using: &random))
          * (Bool.random(using: &random) ? 1 : -1)
      }
    }
    document.schema.vector = VectorField(field: "emb", dimensions: 5)
    document.schema.storedFields.append(.text("emb"))
    for index in document.items.indices where index % 4 != 0 {
      document.items[index].fields["emb"] = .vector(vector())
    }
    let cluster = try PostgresCluster.shared()
    let address = try PostgresAddress(cluster.address(catalog: "vector_bytes"))
    try await PostgresCatalog.replace(address, with: document)
    let s = "\"\(address.schemaName)\""
    let withVectors = document.items.filter { $0["emb"] != nil }.count
    let kept = try cluster.psql(
      "SELECT count(*) FILTER (WHERE octet_length(vector) = 20), count(*) FILTER (WHERE fields ? 'emb') FROM \(s).items"
    )
    #expect(kept.trimmingCharacters(in: .whitespacesAndNewlines) == "\(withVectors)|0")
    var catalog = try await PostgresCatalog.open(address)
    #expect(try await catalog.document() == document)
    // Edits carry it: a new one, one replaced, one taken away (the item keeps its null).
    let first = try await catalog.changes(after: 0).state.version
    var added = document.items[1]
    added.id = "with-vector"
    added.fields["emb"] = .list([1, -2, 3, 0.5, 0.25].map(FieldValue.number))
    let addedVector: [Float] = [1, -2, 3, 0.5, 0.25]
    _ = try #require(try await catalog.commit(.add(added.id, fields: added.fields)))
    added.fields["emb"] = .vector(addedVector)
    document.items.append(added)
    document.items[2].fields["emb"] = .vector(vector())
    _ = try #require(try await catalog.commit(.update(document.items[2])))
    document.items[3].fields["emb"] = .null
    _ = try #require(try await catalog.commit(.update(document.items[3])))
    #expect(try await catalog.document() == document)
    let logged = try await catalog.changes(after: first).changes
    #expect(logged.map(\.item) == [added, document.items[2], document.items[3]])
    await catalog.close()
    // As format 9 left it: each vector its numbers in the JSON.
    var downgrade = "ALTER TABLE \(s).items DROP COLUMN vector; UPDATE \(s).catalog SET format = 9;"
    for item in document.items {
      guard case .vector(let floats)? = item["emb"] else { continue }
      let json = JSONValue.array(floats.map { .number(Double($0.description)!) }).text
      downgrade +=
        "UPDATE \(s).items SET fields = fields || jsonb_build_object('emb', '\(json)'::jsonb) WHERE id = '\(item.id.rawValue)';"
    }
    _ = try cluster.psql(downgrade)
    catalog = try await PostgresCatalog.open(address)
    try Self.expectCurrentFormat(cluster, s)
    let moved = try cluster.psql(
      "SELECT count(*) FILTER (WHERE octet_length(vector) = 20), count(*) FILTER (WHERE jsonb_typeof(fields->'emb') = 'array') FROM \(s).items"
    )
    let vectors = document.items.filter { if case .vector? = $0["emb"] { true } else { false } }
    #expect(moved.trimmingCharacters(in: .whitespacesAndNewlines) == "\(vectors.count)|0")
    #expect(try await catalog.document() == document)
    await catalog.close()
  }

  @Test(
    "adds, replacements and deletes: the catalog holds the edited items, each change logged at the next version"
  )
  func editsLogged() async throws {
    var document = try Self.seed(.products)
    let cluster = try PostgresCluster.shared()
    let address = try PostgresAddress(cluster.address(catalog: "equivalence_edits"))
    try await PostgresCatalog.replace(address, with: document)
    let catalog = try await PostgresCatalog.open(address)
    let start = try await catalog.changes(after: 0).state.version
    let seed: UInt64 = 15_015
    print("logged edits: seed \(seed)")
    var random = SplitMix64(seed: seed)
    let titleField = document.schema.titleField
    var versions: [Int64] = []
    var expected: [(PostgresCatalog.ChangeKind, String)] = []
    for step in 0..<60 {
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        var item = document.items.randomElement(using: &random)!
        item.id = ItemID("added-\(step)")
        item.fields[titleField] = .text(
          (item[titleField]?.displayText ?? "") + " Deluxe \(step)")
        let saved = try #require(try await catalog.commit(.add(item.id, fields: item.fields)))
        versions.append(saved.version)
        expected.append((.put, item.id.rawValue))
        document.items.append(item)
      case 1:
        let index = Int.random(in: 0..<document.items.count, using: &random)
        var item = document.items[index]
        let other = document.items.randomElement(using: &random)!
        item.fields[titleField] = other[titleField]
        let saved = try #require(try await catalog.commit(.update(item)))
        versions.append(saved.version)
        expected.append((.put, item.id.rawValue))
        document.items[index] = item
      default:
        guard document.items.count > 5 else { continue }
        let index = Int.random(in: 0..<document.items.count, using: &random)
        let id = document.items[index].id
        let saved = try #require(try await catalog.commit(.delete(id)))
        versions.append(saved.version)
        expected.append((.delete, id.rawValue))
        document.items.remove(at: index)
      }
    }
    // Refused edits write nothing, not even a version.
    #expect(try await catalog.commit(.delete(ItemID("no-such-item"))) == nil)
    #expect(try await catalog.commit(.add(document.items[0].id, fields: [:])) == nil)
    #expect(versions == Array(start + 1...start + Int64(versions.count)))
    #expect(try await catalog.count() == document.items.count)
    #expect(try await catalog.document() == document)
    let (state, logged) = try await catalog.changes(after: start)
    #expect(state.version == versions.last)
    #expect(logged.map(\.version) == versions)
    #expect(logged.map { "\($0.kind)" + ($0.id?.rawValue ?? "") } == expected.map { "\($0)\($1)" })
    await catalog.close()
  }
}
#endif
