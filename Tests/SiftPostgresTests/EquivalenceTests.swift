#if Server
import Foundation
import Sift
import SiftPostgres
import SiftStore
import SiftTestSupport
import Testing

/// The same catalog searched by the embedded engine and compiled to SQL on PostgreSQL must give
/// the same items in the same order, and the same results indicator.
@Suite("PostgreSQL gives the embedded engine's results", .serialized)
struct EquivalenceTests {
  /// Both doors on one document: the engine's controller and the catalog in PostgreSQL.
  struct Pair {
    var controller: SearchController
    var exactController: SearchController
    var catalog: PostgresCatalog
    var document: CatalogDocument

    init(_ document: CatalogDocument, name: String) async throws {
      let cluster = try PostgresCluster.shared()
      let address = try PostgresAddress(cluster.address(catalog: name))
      try await PostgresCatalog.replace(address, with: document)
      try await self.init(opening: document, at: address)
    }

    /// The catalog at `address`, which holds `document`, beside the engine on it.
    init(opening document: CatalogDocument, at address: PostgresAddress) async throws {
      catalog = try await PostgresCatalog.open(address)
      controller = SearchController(collection: try document.makeCollection())
      exactController = SearchController(
        collection: try document.makeCollection(typoTolerance: .off))
      self.document = document
    }

    /// Both answers for one input: ids and indicator, engine then PostgreSQL.
    mutating func compare(
      _ input: SearchRequestInput, typos: TypoTolerance = .automatic, limit: Int? = nil,
      offset: Int = 0
    ) async throws -> (engine: [String], postgres: [String]) {
      var controller = typos.isEnabled ? self.controller : exactController
      controller.send(.cancel)
      try controller.apply(input)
      let count = controller.rows.count
      let start = min(offset, count)
      let end = limit.map { min(start + $0, count) } ?? count
      let engine = (start..<end).map { controller.rows[$0].rawValue } + [controller.indicator.text]
      let result = try await catalog.search(
        SearchRequest(input, schema: catalog.schema), typos: typos, limit: limit, offset: offset)
      return (engine, result.ids.map(\.rawValue) + [result.indicator.text])
    }
  }

  static func seed(_ catalog: SeedCatalog) throws -> CatalogDocument { try catalog.load() }

  /// Counts a difference between the two answers to `what`; the first five are recorded with
  /// both answers' start.
  static func count(
    _ differences: inout Int, _ engine: [String], _ postgres: [String],
    _ what: @autoclosure () -> String
  ) {
    guard engine != postgres else { return }
    differences += 1
    if differences <= 5 {
      Issue.record("\(what()): engine \(engine.prefix(12)) ≠ postgres \(postgres.prefix(12))")
    }
  }

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
    "random queries on the seed catalogs and the cities sample give identical result lists",
    arguments: ["products", "candies", "media", "meals", "cities"])
  func randomQueries(catalog name: String) async throws {
    let document =
      name == "cities" ? try Self.cities() : try Self.seed(SeedCatalog(rawValue: name)!)
    var pair = try await Pair(document, name: "equivalence_\(name)")
    var random = SplitMix64(seed: 15_000 + UInt64(name.count))
    let count = name == "cities" ? 700 : 400
    var differences = 0
    var found = 0
    var near = 0
    for index in 0..<count {
      let input = Self.randomInput(document, using: &random)
      let typos: TypoTolerance = index % 10 == 9 ? .off : .automatic
      // Every third a page of 10: the database then ranks exactly only the rows that can be on it.
      let (engine, postgres) = try await pair.compare(
        input, typos: typos, limit: index % 3 == 0 ? 10 : nil)
      if engine.count > 1 { found += 1 }
      if engine.last?.contains("near spelling") == true { near += 1 }
      Self.count(
        &differences, engine, postgres, "\(name) #\(index) \(input) typos \(typos.isEnabled)")
    }
    print("\(name): \(count) queries, \(found) found something, \(near) with near spellings")
    #expect(differences == 0, "\(differences) of \(count) queries differ")
    // The queries must exercise both paths, or agreeing proves little.
    #expect(found > count / 5 && near > 0, "\(found) found, \(near) near")
    await pair.catalog.close()
  }

  @Test(
    "sorted by a number field or the title, PostgreSQL gives the engine's order and pages",
    arguments: ["products", "cities"])
  func sortedQueries(catalog name: String) async throws {
    var document =
      name == "cities" ? try Self.cities() : try Self.seed(SeedCatalog(rawValue: name)!)
    // Some items without a value, which come last in either direction.
    for index in stride(from: 3, to: document.items.count, by: 7) {
      for field in document.schema.fields where field.kind == .number {
        document.items[index].fields[field.name] = nil
      }
    }
    var pair = try await Pair(document, name: "sorted_\(name)")
    let seed = 16_000 + UInt64(name.count)
    print("sorted \(name): seed \(seed)")
    var random = SplitMix64(seed: seed)
    let sorts = document.schema.sortableFields.flatMap {
      [SearchSort($0.name), SearchSort($0.name, descending: true)]
    }
    var differences = 0
    let count = name == "cities" ? 240 : 160
    for index in 0..<count {
      var input =
        index % 8 == 0
        ? SearchRequestInput(text: "") : Self.randomInput(document, using: &random)
      // One-letter queries too: they must not take the letter tables' relevance order.
      if index % 8 == 1 { input.text = String(input.text.prefix(1)) }
      input.sort = sorts.randomElement(using: &random)!
      let (engine, postgres) = try await pair.compare(
        input, limit: index % 2 == 0 ? 10 : nil, offset: index % 4 == 0 ? 5 : 0)
      Self.count(&differences, engine, postgres, "\(name) #\(index) \(input)")
    }
    #expect(differences == 0, "\(differences) of \(count) sorted queries differ")
    await pair.catalog.close()
  }

  @Test(
    "near a place, within a radius, sorted by distance: PostgreSQL gives the engine's order, pages and counts"
  )
  func nearQueries() async throws {
    var document = try Self.cities(located: true)
    // Some cities without a location, which come last and are never within a radius.
    for index in stride(from: 4, to: document.items.count, by: 9) {
      document.items[index].fields["latitude"] = nil
    }
    var pair = try await Pair(document, name: "near_cities")
    let seed: UInt64 = 19_007
    print("near cities: seed \(seed)")
    var random = SplitMix64(seed: seed)
    let located = document.items.filter { $0.fields["latitude"] != nil }
    var differences = 0
    var within = 0
    let count = 240
    for index in 0..<count {
      var input =
        index % 8 == 0
        ? SearchRequestInput(text: "") : Self.randomInput(document, using: &random)
      if index % 8 == 1 { input.text = String(input.text.prefix(1)) }
      // Near a city of the catalog (ties of distance among its neighbours), or anywhere.
      let point: GeoPoint
      if index % 3 == 0 {
        point = try GeoPoint(
          latitude: Double.random(in: -60...70, using: &random),
          longitude: Double.random(in: -180...180, using: &random))
      } else {
        let city = located.randomElement(using: &random)!
        point = document.schema.point(of: city)!
      }
      let radius: Double? =
        index % 2 == 0 ? [25, 300, 2_500].randomElement(using: &random)! : nil
      input.near = SearchNear(point, withinKilometers: radius)
      if index % 5 == 0 { input.sort = SearchSort("distance", descending: index % 10 == 5) }
      let (engine, postgres) = try await pair.compare(
        input, limit: index % 2 == 1 ? 10 : nil, offset: index % 4 == 3 ? 4 : 0)
      if radius != nil, engine.count > 1 { within += 1 }
      Self.count(&differences, engine, postgres, "near #\(index) \(input)")
    }
    print("near cities: \(count) queries, \(within) found something within a radius")
    #expect(differences == 0, "\(differences) of \(count) queries near a place differ")
    #expect(within > count / 10)
    await pair.catalog.close()
  }

  @Test(
    "either of two (`a | b`, `a OR b`): PostgreSQL gives the engine's order, pages and counts",
    arguments: ["products", "cities"])
  func alternatives(catalog name: String) async throws {
    let document =
      name == "cities" ? try Self.cities() : try Self.seed(SeedCatalog(rawValue: name)!)
    var pair = try await Pair(document, name: "either_\(name)")
    let seed = 17_000 + UInt64(name.count)
    print("either \(name): seed \(seed)")
    var random = SplitMix64(seed: seed)
    let sorts = document.schema.sortableFields.map { SearchSort($0.name, descending: true) }
    var differences = 0
    var found = 0
    let count = name == "cities" ? 200 : 160
    for index in 0..<count {
      // Two or three terms of random queries (each of another item), one the alternative of
      // the one before; now and then the whole of the first query ANDed with them.
      var input = Self.randomInput(document, using: &random)
      let first = input.text.split(separator: " ").map(String.init)
      var text = first.first ?? "x"
      for _ in 0..<Int.random(in: 1...2, using: &random) {
        let other = Self.randomInput(document, using: &random).text.split(separator: " ")
        let joiner = [" | ", " OR ", "|"].randomElement(using: &random)!
        text += joiner + (other.first.map(String.init) ?? "x")
      }
      if index % 3 == 0 { text += " " + first.dropFirst().joined(separator: " ") }
      input.text = text
      if index % 5 == 0 { input.sort = sorts.randomElement(using: &random) }
      let (engine, postgres) = try await pair.compare(
        input, limit: index % 2 == 0 ? 10 : nil, offset: index % 4 == 0 ? 3 : 0)
      if engine.count > 2 { found += 1 }
      Self.count(&differences, engine, postgres, "\(name) #\(index) \(input)")
    }
    print("either \(name): \(count) queries, \(found) found more than one")
    #expect(differences == 0, "\(differences) of \(count) queries with alternatives differ")
    #expect(found > count / 5)
    await pair.catalog.close()
  }

  @Test(
    "synonyms saved in the catalog: PostgreSQL gives the engine's order, pages and counts",
    arguments: ["products", "cities"])
  func synonyms(catalog name: String) async throws {
    var document =
      name == "cities" ? try Self.cities() : try Self.seed(SeedCatalog(rawValue: name)!)
    let seed = 18_000 + UInt64(name.count)
    print("synonyms \(name): seed \(seed)")
    var random = SplitMix64(seed: seed)
    // Groups and rules of words and two-word names the catalog holds.
    let title = document.schema.titleField
    func expression() -> String {
      let words = (document.items.randomElement(using: &random)![title]?.displayText ?? "x")
        .split { !$0.isLetter }
      return words.prefix(Int.random(in: 1...2, using: &random)).joined(separator: " ")
    }
    var entries: [Synonyms.Entry] = []
    for index in 0..<12 {
      let (a, b, c) = (expression(), expression(), expression())
      guard Set([a, b, c].map { TextFolding.fold($0) }).count == 3, !a.isEmpty, !b.isEmpty
      else { continue }
      entries.append(index % 3 == 0 ? .init([a], to: [b]) : .init(group: [a, b, c]))
    }
    document.schema.synonyms = Synonyms(entries)
    var pair = try await Pair(document, name: "synonyms_\(name)")
    var differences = 0
    var expanded = 0
    let count = name == "cities" ? 150 : 120
    for index in 0..<count {
      var input = Self.randomInput(document, using: &random)
      // Most queries name an expression, alone or with other terms.
      if index % 4 != 3, let entry = entries.randomElement(using: &random) {
        let typed = entry.expressions.randomElement(using: &random)!
        input.text = index % 2 == 0 ? typed : typed + " " + input.text
      }
      if index % 5 == 0 {
        input.sort = document.schema.sortableFields.first.map { SearchSort($0.name) }
      }
      let criteria = try SearchRequest(input, schema: document.schema).criteria
      let resolved = ResolvedCriteria(criteria, schema: document.schema)
      if resolved.searchedTerms != resolved.allTerms { expanded += 1 }
      let (engine, postgres) = try await pair.compare(
        input, limit: index % 2 == 0 ? 10 : nil, offset: index % 4 == 0 ? 2 : 0)
      Self.count(&differences, engine, postgres, "\(name) #\(index) \(input)")
    }
    print("synonyms \(name): \(count) queries, \(expanded) through synonyms")
    #expect(differences == 0, "\(differences) of \(count) queries with synonyms differ")
    #expect(expanded > count / 2)
    await pair.catalog.close()
  }

  @Test(
    "one-letter searches read the letters tables and give the engine's pages and counts",
    arguments: ["products", "cities"])
  func oneLetter(catalog name: String) async throws {
    let document =
      name == "cities" ? try Self.cities() : try Self.seed(SeedCatalog(rawValue: name)!)
    var pair = try await Pair(document, name: "letters_\(name)")
    try await Self.compareLetters(&pair, name: name)
    await pair.catalog.close()
  }

  @Test("a format 1 catalog is upgraded on open: its letters are filled and read")
  func upgradeFromFormatOne() async throws {
    // Back to format 1 as an older Sift wrote it: no letters tables, no letter columns.
    let (document, cluster, address, s) = try await Self.olderCities("letters_upgrade") { s in
      """
      DROP TABLE \(s).letters; DROP TABLE \(s).letter_counts;
      ALTER TABLE \(s).items DROP COLUMN lh, DROP COLUMN lw, DROP COLUMN lv;
      UPDATE \(s).catalog SET format = 1;
      """
    }
    // Two processes opening it at once upgrade it once.
    async let first = PostgresCatalog.open(address)
    async let second = PostgresCatalog.open(address)
    let (catalog, other) = try await (first, second)
    await other.close()
    await catalog.close()
    try Self.expectCurrentFormat(cluster, s)
    var pair = try await Pair(opening: document, at: address)
    try await Self.compareLetters(&pair, name: "cities upgraded")
    await pair.catalog.close()
  }

  @Test("a format 2 catalog is upgraded on open: its letters are ranked again")
  func upgradeFromFormatTwo() async throws {
    // Ranks as an older Sift made them, which no longer agree with the engine: here every
    // one the worst, so that a page read from them is out of order until they are made again.
    let (document, cluster, address, s) = try await Self.olderCities("letters_rerank") { s in
      "UPDATE \(s).letters SET rank = 4095; UPDATE \(s).catalog SET format = 2;"
    }
    let catalog = try await PostgresCatalog.open(address)
    await catalog.close()
    try Self.expectCurrentFormat(cluster, s)
    let worst = try cluster.psql("SELECT count(*) FROM \(s).letters WHERE rank = 4095")
    #expect(worst.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    var pair = try await Pair(opening: document, at: address)
    try await Self.compareLetters(&pair, name: "cities reranked")
    await pair.catalog.close()
  }

  @Test("a format 5 catalog is folded again on open: an apostrophe no longer splits a name")
  func upgradeFromFormatFive() async throws {
    // As format 5 folded them: a name of ASCII with an apostrophe kept it ("sant'anna").
    let (document, cluster, address, s) = try await Self.olderCities("apostrophes") { s in
      """
      UPDATE \(s).items SET t0 = lower(fields->>'name')
        WHERE fields->>'name' ~ '^[ -~]*$' AND strpos(fields->>'name', '''') > 0;
      UPDATE \(s).catalog SET format = 5;
      """
    }
    let kept = try cluster.psql("SELECT count(*) FROM \(s).items WHERE strpos(t0, '''') > 0")
    #expect(Int(kept.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 5)
    var pair = try await Pair(opening: document, at: address)
    try Self.expectCurrentFormat(cluster, s)
    let left = try cluster.psql("SELECT count(*) FROM \(s).items WHERE strpos(t0, '''') > 0")
    #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    // Each such name, typed without its apostrophe, with it, and from its second word.
    for name in ["Sant'Anna", "Grand'Anse", "Jardine's Lookout", "Saint-Jean-d'Angély"] {
      for text in [
        name.replacingOccurrences(of: "'", with: ""), name, name.lowercased(),
        String(name.split(separator: "'").last ?? ""),
      ] {
        let (engine, postgres) = try await pair.compare(SearchRequestInput(text: text), limit: 5)
        #expect(engine == postgres, "\(text)")
        #expect(!engine.isEmpty, "\(text) finds something")
      }
    }
    try await Self.compareLetters(&pair, name: "cities refolded")
    await pair.catalog.close()
  }

  @Test(
    "a misspelt word being typed: values starting with a near spelling rank as in the engine (a format 4 catalog gains what finds them)"
  )
  func typedMisspellings() async throws {
    // As format 4 left it: without the function that finds a value starting with a near spelling.
    let (document, cluster, address, s) = try await Self.olderCities("near_starts") { s in
      "DROP FUNCTION \(s).near_start; UPDATE \(s).catalog SET format = 4;"
    }
    var pair = try await Pair(opening: document, at: address)
    try Self.expectCurrentFormat(cluster, s)
    let seed: UInt64 = 29_003
    print("typed misspellings: seed \(seed)")
    var random = SplitMix64(seed: seed)
    var differences = 0
    var nearStarts = 0
    for index in 0..<150 {
      guard case .text(let title) = document.items.randomElement(using: &random)?.fields["name"]
      else { continue }
      var letters = Array(title)
      guard letters.count >= 5 else { continue }
      // One edit after the first letter: a deletion, or two neighbours swapped.
      let at = Int.random(in: 1..<letters.count - 1, using: &random)
      if Bool.random(using: &random) {
        letters.remove(at: at)
      } else {
        letters.swapAt(at, at + 1)
      }
      // Words joined by punctuation are looked for word by word.
      let text =
        index % 3 == 0 ? String(letters).replacingOccurrences(of: " ", with: "-") : String(letters)
      let input = SearchRequestInput(text: text)
      let (engine, postgres) = try await pair.compare(input, limit: index % 2 == 0 ? 5 : nil)
      let result = try await pair.catalog.search(
        SearchRequest(input, schema: pair.catalog.schema), limit: 5)
      nearStarts += result.ranks.count { $0.exactness == .startsValue && $0.typos > 0 }
      if engine != postgres {
        differences += 1
        if differences <= 5 {
          Issue.record("\"\(input.text)\": engine \(engine) ≠ postgres \(postgres)")
        }
      }
    }
    #expect(differences == 0)
    // The near starts must be there, or agreeing proves little.
    #expect(nearStarts > 20, "\(nearStarts) near starts")
    await pair.catalog.close()
  }

  @Test("edits from several tasks at once keep the letter counts equal to the items'")
  func concurrentEditsKeepLetterCounts() async throws {
    let document = try Self.seed(.products)
    let cluster = try PostgresCluster.shared()
    let address = try PostgresAddress(cluster.address(catalog: "letters_concurrent"))
    try await PostgresCatalog.replace(address, with: document)
    let catalog = try await PostgresCatalog.open(address)
    let titleField = document.schema.titleField
    let categoryField = document.schema.categoryField
    let categories = Array(
      Set(document.items.compactMap { item in categoryField.flatMap { item[$0]?.displayText } })
    )
    .sorted()
    // Four writers, each adding, changing and deleting its own items in the same categories,
    // so their count rows collide.
    try await withThrowingTaskGroup(of: Void.self) { group in
      for writer in 0..<4 {
        group.addTask {
          var random = SplitMix64(seed: 15_200 + UInt64(writer))
          var mine: [Item] = []
          for step in 0..<25 {
            var fields: [String: FieldValue] = [
              titleField: .text(
                ["Sunflower", "Amaryllis", "Zinnia", "quince jam", "Orchid"].randomElement(
                  using: &random)! + " \(writer)-\(step)")
            ]
            if let categoryField, let category = categories.randomElement(using: &random) {
              fields[categoryField] = .text(category)
            }
            switch Int.random(in: 0..<3, using: &random) {
            case 0, 1:
              let item = Item(id: ItemID("w\(writer)-\(step)"), fields: fields)
              try await catalog.add(item)
              mine.append(item)
            default:
              guard !mine.isEmpty else { continue }
              let index = Int.random(in: 0..<mine.count, using: &random)
              if Bool.random(using: &random) {
                mine[index].fields = fields
                #expect(try await catalog.update(mine[index]))
              } else {
                #expect(try await catalog.delete(id: mine.remove(at: index).id))
              }
            }
          }
        }
      }
      try await group.waitForAll()
    }
    let s = "\"\(address.schemaName)\""
    // The counts kept by the edits, against the counts of the items' masks as they are now.
    let kept = try cluster.psql(
      """
      SELECT letter, coalesce(category, '-'), matches, counted, starting FROM \(s).letter_counts
      WHERE matches <> 0 OR counted <> 0 OR starting <> 0 ORDER BY 1, 2
      """)
    let recounted = try cluster.psql(
      """
      SELECT letter, coalesce(category, '-'), count(*),
        count(*) FILTER (WHERE lw & (1 << letter) <> 0), count(*) FILTER (WHERE lv & (1 << letter) <> 0)
      FROM \(s).items, generate_series(0, 25) AS letter WHERE lh & (1 << letter) <> 0
      GROUP BY 1, 2 ORDER BY 1, 2
      """)
    #expect(!kept.isEmpty)
    #expect(kept == recounted)
    // The ranks too: every item's letters rows are those its row makes now.
    var pair = try await Pair(opening: try await catalog.document(), at: address)
    await catalog.close()
    try await Self.compareLetters(&pair, name: "products after concurrent edits")
    await pair.catalog.close()
  }

  /// Every letter, alone and with each of a few categories (as a token), at several page sizes
  /// and offsets: the same page and indicator as the engine, most of them from the letters
  /// tables (so a broken table fails here rather than passing by the general path).
  static func compareLetters(_ pair: inout Pair, name: String) async throws {
    let schema = pair.document.schema
    var categories: [String?] = [nil]
    if let field = schema.categoryField {
      let values = Set(pair.document.items.compactMap { $0[field]?.displayText }).sorted()
      categories += values.prefix(3).map { "\(field):\($0)" }
    }
    let before = pair.catalog.letterSearches.value
    var compared = 0
    var differences = 0
    for letter in "abcdefghijklmnopqrstuvwxyz" {
      for token in categories {
        for (limit, offset) in [(1, 0), (5, 0), (5, 3), (20, 0)] {
          let text = compared % 2 == 0 ? String(letter) : letter.uppercased()
          let input = SearchRequestInput(text: text, tokens: token.map { [$0] } ?? [])
          let (engine, postgres) = try await pair.compare(input, limit: limit, offset: offset)
          compared += 1
          if engine != postgres {
            differences += 1
            if differences <= 5 {
              Issue.record(
                "\(name) \(text) \(token ?? "") limit \(limit) offset \(offset): engine \(engine) ≠ postgres \(postgres)"
              )
            }
          }
        }
      }
    }
    let read = pair.catalog.letterSearches.value - before
    print("\(name): \(compared) one-letter searches, \(read) read from the letters tables")
    #expect(differences == 0, "\(differences) of \(compared) one-letter searches differ")
    // The rest reach past the items with a value starting with the letter (small categories).
    #expect(read > compared / 3, "only \(read) of \(compared) read the letters tables")
  }

  @Test("after adds, updates and deletes through the catalog, searches still equal the engine's")
  func editsReplayed() async throws {
    var document = try Self.seed(.products)
    var pair = try await Pair(document, name: "equivalence_edits")
    var random = SplitMix64(seed: 15_015)
    let titleField = document.schema.titleField
    for step in 0..<60 {
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        var item = document.items.randomElement(using: &random)!
        item.id = ItemID("added-\(step)")
        item.fields[titleField] = .text(
          (item[titleField]?.displayText ?? "") + " Deluxe \(step)")
        try await pair.catalog.add(item)
        document.items.append(item)
      case 1:
        let index = Int.random(in: 0..<document.items.count, using: &random)
        var item = document.items[index]
        let other = document.items.randomElement(using: &random)!
        item.fields[titleField] = other[titleField]
        try await pair.catalog.update(item)
        document.items[index] = item
      default:
        guard document.items.count > 5 else { continue }
        let index = Int.random(in: 0..<document.items.count, using: &random)
        #expect(try await pair.catalog.delete(id: document.items[index].id))
        document.items.remove(at: index)
      }
    }
    #expect(try await pair.catalog.delete(id: ItemID("no-such-item")) == false)
    #expect(try await pair.catalog.count() == document.items.count)
    #expect(try await pair.catalog.document() == document)
    // The engine on the edited items against the edited catalog.
    pair.controller = SearchController(collection: try document.makeCollection())
    pair.exactController = SearchController(
      collection: try document.makeCollection(typoTolerance: .off))
    pair.document = document
    var differences = 0
    for index in 0..<300 {
      let input = Self.randomInput(document, using: &random)
      let (engine, postgres) = try await pair.compare(input)
      if engine != postgres {
        differences += 1
        if differences <= 5 {
          Issue.record(
            "#\(index) \(input): engine \(engine.prefix(12)) ≠ postgres \(postgres.prefix(12))")
        }
      }
    }
    #expect(differences == 0, "\(differences) of 300 queries differ after the edits")
    // The letters tables were kept by the edits too.
    try await Self.compareLetters(&pair, name: "products after edits")
    await pair.catalog.close()
  }

  @Test("many searches at once share a bounded set of connections and answer as one at a time")
  func concurrentSearches() async throws {
    let document = try Self.seed(.products)
    let pair = try await Pair(document, name: "equivalence_concurrent")
    var random = SplitMix64(seed: 15_016)
    let inputs = (0..<96).map { _ in Self.randomInput(document, using: &random) }
    var alone: [[String]] = []
    for input in inputs {
      let result = try await pair.catalog.search(
        SearchRequest(input, schema: pair.catalog.schema), limit: 10)
      alone.append(result.ids.map(\.rawValue) + [result.indicator.text])
    }
    let catalog = pair.catalog
    let together = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
      for (index, input) in inputs.enumerated() {
        group.addTask {
          // Facets too: several statements per request, each on the request's connection.
          let searched = try SearchRequest(input, schema: catalog.schema)
          let result = try await catalog.search(searched, limit: 10)
          _ = try await catalog.facets(searched, matchCount: result.indicator.matchCount)
          return (index, result.ids.map(\.rawValue) + [result.indicator.text])
        }
      }
      var answers = [[String]](repeating: [], count: inputs.count)
      for try await (index, answer) in group { answers[index] = answer }
      return answers
    }
    #expect(together == alone)
    let peak = catalog.peakConnections
    print("96 searches at once: at most \(peak) connections")
    #expect(peak > 1 && peak <= 16, "\(peak) connections")
    await catalog.close()
  }
}
#endif
