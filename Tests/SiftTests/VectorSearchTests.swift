import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// A search by meaning against a brute-force reference written here: cosine similarity in
/// doubles over every item the filters keep, the nearest first (ties in catalog order), and
/// with text the fusion `(1 - r) / textRank + r / nearRank` computed from the engine's own text
/// order (tested elsewhere) — on random catalogs, vectors and filters, each seed printed.
@Suite("Search by meaning", .tags(.unit))
struct VectorSearchTests {
  static let words = ["red", "green", "apple", "pear", "plum", "tart", "sweet", "dark", "ripe"]
  static let kinds = ["Fruit", "Nut", "Berry"]

  struct Catalog {
    var document: CatalogDocument
    var vectors: [ItemID: [Float]]
  }

  /// `count` items of two or three words, a kind and (most of them) a vector of `dimensions`.
  static func catalog(seed: UInt64, count: Int, dimensions: Int) -> Catalog {
    var random = SplitMix64(seed: seed)
    var items: [Item] = []
    var vectors: [ItemID: [Float]] = [:]
    for index in 0..<count {
      let id = ItemID(String(index))
      let title = (0..<Int.random(in: 2...3, using: &random)).map { _ in
        words.randomElement(using: &random)!
      }.joined(separator: " ")
      var fields: [String: FieldValue] = [
        "title": .text(title), "kind": .text(kinds.randomElement(using: &random)!),
      ]
      if Int.random(in: 0..<10, using: &random) > 0 {
        let vector = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) }
        fields["embedding"] = .vector(vector)
        vectors[id] = vector
      }
      items.append(Item(id: id, fields: fields))
    }
    var schema = CatalogSchema(
      name: "things", fields: [.text("title"), .category("kind")], titleField: "title",
      categoryField: "kind", scopes: [.all()] + kinds.map { .category($0) },
      storedFields: [.text("embedding")])
    schema.vector = VectorField(field: "embedding", dimensions: dimensions)
    return Catalog(document: CatalogDocument(schema: schema, items: items), vectors: vectors)
  }

  static func cosine(_ a: [Float], _ b: [Float]) -> Double {
    var (dot, x, y) = (0.0, 0.0, 0.0)
    for (p, q) in zip(a, b) {
      dot += Double(p) * Double(q)
      x += Double(p) * Double(p)
      y += Double(q) * Double(q)
    }
    return dot / (x.squareRoot() * y.squareRoot())
  }

  /// The reference's nearest: every item `keeps` admits that has a vector, by similarity to
  /// `query`, then catalog order.
  static func nearest(
    _ catalog: Catalog, to query: [Float], count: Int, keeps: (Item) -> Bool
  ) -> [(id: ItemID, similarity: Double)] {
    let scored = catalog.document.items.enumerated().compactMap {
      position, item -> (id: ItemID, similarity: Double, position: Int)? in
      guard keeps(item), let vector = catalog.vectors[item.id] else { return nil }
      return (item.id, cosine(vector, query), position)
    }
    return scored.sorted {
      $0.similarity != $1.similarity ? $0.similarity > $1.similarity : $0.position < $1.position
    }.prefix(count).map { ($0.id, $0.similarity) }
  }

  /// Whether `found` is `expected` up to floats: the same ids wherever two similarities are
  /// more than a float's rounding apart, and the same similarity where they are not.
  static func agree(
    _ found: [ItemID], _ expected: [(id: ItemID, similarity: Double)],
    similarity: [ItemID: Double]
  ) -> Bool {
    guard found.count == expected.count else { return false }
    for (id, want) in zip(found, expected) where id != want.id {
      guard let got = similarity[id], abs(got - want.similarity) < 1e-5 else { return false }
    }
    return true
  }

  static let seeds: [UInt64] = [1, 2, 3, 72, 7_207]

  @Test("nearest items equal the brute-force reference, filters applied first", arguments: seeds)
  func nearestItems(seed: UInt64) throws {
    print("VectorSearchTests seed \(seed)")
    let dimensions = [3, 8, 17, 32][Int(seed % 4)]
    let catalog = Self.catalog(seed: seed, count: 400, dimensions: dimensions)
    let collection = try catalog.document.makeCollection()
    var random = SplitMix64(seed: seed &+ 1)
    for round in 0..<40 {
      let query = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) }
      let kind = Bool.random(using: &random) ? Self.kinds.randomElement(using: &random) : nil
      let tenant =
        Int.random(in: 0..<4, using: &random) == 0 ? Self.kinds.randomElement(using: &random) : nil
      let count = [1, 5, 20, 100, 1_000].randomElement(using: &random)!
      let request = try SearchRequest(
        SearchRequestInput(
          text: "", tokens: kind.map { ["category:\($0)"] } ?? [],
          base: tenant.map { ["category:\($0)"] } ?? [],
          vector: SearchVector(.vector(query), neighbors: count)),
        schema: catalog.document.schema)
      let expected = Self.nearest(catalog, to: query, count: count) { item in
        let value = item["kind"]?.strings.first
        return (kind == nil || value == kind) && (tenant == nil || value == tenant)
      }
      let similarity = Dictionary(
        uniqueKeysWithValues: catalog.vectors.map { ($0.key, Self.cosine($0.value, query)) })
      let found = Array(collection.searched(request).rows)
      #expect(
        Self.agree(found, expected, similarity: similarity),
        "seed \(seed) round \(round): \(found.prefix(5)) vs \(expected.prefix(5).map(\.id))")
    }
  }

  @Test("like=ID finds the item itself first, then its nearest", arguments: seeds)
  func likeAnItem(seed: UInt64) throws {
    let catalog = Self.catalog(seed: seed, count: 300, dimensions: 16)
    let collection = try catalog.document.makeCollection()
    for id in catalog.vectors.keys.sorted(by: { $0.rawValue < $1.rawValue }).prefix(25) {
      let request = try SearchRequest(
        SearchRequestInput(text: "", vector: SearchVector(.like(id), neighbors: 10)),
        schema: catalog.document.schema)
      let found = Array(collection.searched(request).rows)
      let expected = Self.nearest(catalog, to: catalog.vectors[id]!, count: 10) { _ in true }
      #expect(found.first == id, "seed \(seed): like \(id) found \(found.prefix(3))")
      let similarity = Dictionary(
        uniqueKeysWithValues: catalog.vectors.map {
          ($0.key, Self.cosine($0.value, catalog.vectors[id]!))
        })
      #expect(Self.agree(found, expected, similarity: similarity), "seed \(seed): like \(id)")
    }
  }

  @Test("a tenant cannot search near an item it may not see")
  func likeOutsideTheBase() throws {
    let catalog = Self.catalog(seed: 5, count: 200, dimensions: 8)
    let collection = try catalog.document.makeCollection()
    let item = catalog.document.items.first {
      catalog.vectors[$0.id] != nil && $0["kind"] == .text("Nut")
    }!
    let request = try SearchRequest(
      SearchRequestInput(
        text: "", base: ["category:Fruit"], vector: SearchVector(.like(item.id))),
      schema: catalog.document.schema)
    #expect(collection.searched(request).rows.isEmpty)
  }

  /// The reference fusion of `textOrder` (the engine's text order, tested elsewhere) and
  /// `nearest`: the text's first `depth` matches (`neighbors`, or `neighbors · (1 - r) / r`
  /// when more; all of them at a ratio of 0) and the nearest, names equal to `text` first,
  /// then by `(1 - r) / textRank + r / nearRank`; then the text's later matches in its order.
  static func fusedReference(
    text: String, textOrder: [ItemID], nearest: [ItemID], titles: [ItemID: String],
    ratio: Double, neighbors: Int
  ) -> [ItemID] {
    let depth =
      ratio > 0
      ? max(neighbors, Int((Double(neighbors) * (1 - ratio) / ratio).rounded(.up)))
      : textOrder.count
    let fusedText = Array(textOrder.prefix(depth))
    let whole = fusedText.filter { titles[$0] == text }
    let nearRank = Dictionary(uniqueKeysWithValues: nearest.enumerated().map { ($1, $0 + 1) })
    let textRank = Dictionary(uniqueKeysWithValues: fusedText.enumerated().map { ($1, $0 + 1) })
    let rest = Set(fusedText).union(nearest).subtracting(whole)
    func score(_ id: ItemID) -> Double {
      (textRank[id].map { (1 - ratio) / Double($0) } ?? 0)
        + (nearRank[id].map { ratio / Double($0) } ?? 0)
    }
    let fused =
      whole
      + rest.sorted { a, b in
        let (x, y) = (score(a), score(b))
        if x != y { return x > y }
        let best = { (id: ItemID) in min(textRank[id] ?? .max, nearRank[id] ?? .max) }
        if best(a) != best(b) { return best(a) < best(b) }
        if (textRank[a] ?? .max) != (textRank[b] ?? .max) {
          return (textRank[a] ?? .max) < (textRank[b] ?? .max)
        }
        return (nearRank[a] ?? .max) < (nearRank[b] ?? .max)
      }
    let placed = Set(fused)
    return fused + textOrder.dropFirst(depth).filter { !placed.contains($0) }
  }

  @Test(
    "text and a vector fuse as the formula says, names equal to the query first",
    arguments: [0.0, 0.1, 0.3, 0.5, 1.0])
  func hybrid(ratio: Double) throws {
    let catalog = Self.catalog(seed: 72, count: 400, dimensions: 12)
    let collection = try catalog.document.makeCollection()
    var random = SplitMix64(seed: 720)
    let schema = catalog.document.schema
    let titles = Dictionary(
      uniqueKeysWithValues: catalog.document.items.map { ($0.id, $0["title"]!.strings[0]) })
    for text in ["apple", "red", "tart plum", "pe", "sweet dark ripe", "zzz"] {
      let query = (0..<12).map { _ in Float.random(in: -1...1, using: &random) }
      let textOrder = Array(
        collection.searched(try SearchRequest(SearchRequestInput(text: text), schema: schema)).rows
      )
      let nearest = Self.nearest(catalog, to: query, count: 30) { _ in true }
      let request = try SearchRequest(
        SearchRequestInput(
          text: text, vector: SearchVector(.vector(query), semanticRatio: ratio, neighbors: 30)),
        schema: schema)
      let found = Array(collection.searched(request).rows)
      let expected = Self.fusedReference(
        text: text, textOrder: textOrder, nearest: nearest.map(\.id), titles: titles,
        ratio: ratio, neighbors: 30)
      #expect(found == expected, "ratio \(ratio), text \"\(text)\"")
    }
  }

  @Test("a broad query with a vector ranks the text's later matches only as they are read")
  func fusedInPart() throws {
    let catalog = Self.catalog(seed: 7272, count: 6_000, dimensions: 8)
    var collection = try catalog.document.makeCollection()
    var random = SplitMix64(seed: 7273)
    let schema = catalog.document.schema
    let titles = Dictionary(
      uniqueKeysWithValues: catalog.document.items.map { ($0.id, $0["title"]!.strings[0]) })
    for text in ["r", "pe", "sweet"] {
      let query = (0..<8).map { _ in Float.random(in: -1...1, using: &random) }
      let textOrder = Array(
        collection.searched(try SearchRequest(SearchRequestInput(text: text), schema: schema)).rows
      )
      try #require(textOrder.count > 700, "\(text): too few matches")
      let nearest = Self.nearest(catalog, to: query, count: 40) { _ in true }
      collection.filter(
        by: SearchCriteria(
          text: text, vector: SearchVector(.vector(query), semanticRatio: 0.5, neighbors: 40)))
      #expect(collection.matches.orderedCount < collection.rows.count, "\(text): ranked whole")
      let expected = Self.fusedReference(
        text: text, textOrder: textOrder, nearest: nearest.map(\.id), titles: titles,
        ratio: 0.5, neighbors: 40)
      #expect(collection.rows[600] == expected[600], "\(text)")
      // A row past the fused ones says so, and that the text found it.
      let past = try #require(collection.explanation(forRow: 600))
      #expect(past.meaning?.textRankPast == 40 && past.meaning?.textRank == nil)
      #expect(!past.isByMeaningAlone)
      #expect(collection.explanation(forRow: 0)?.meaning?.textRankPast == nil)
      #expect(Array(collection.rows) == expected, "\(text)")
    }
  }

  @Test("a request by meaning is checked against the catalog")
  func checked() throws {
    let schema = Self.catalog(seed: 1, count: 10, dimensions: 4).document.schema
    #expect(throws: SearchRequestError.invalidVector(.wrongLength(3, expected: 4))) {
      try SearchRequest(
        SearchRequestInput(text: "", vector: SearchVector(.vector([1, 2, 3]))), schema: schema)
    }
    #expect(throws: SearchRequestError.invalidSemanticRatio(1.5)) {
      try SearchRequest(
        SearchRequestInput(
          text: "", vector: SearchVector(.vector([1, 2, 3, 4]), semanticRatio: 1.5)),
        schema: schema)
    }
    var plain = schema
    plain.vector = nil
    #expect(throws: SearchRequestError.noVectors(catalog: "things")) {
      try SearchRequest(
        SearchRequestInput(text: "", vector: SearchVector(.vector([1, 2, 3, 4]))), schema: plain)
    }
  }

  @Test("an index with vectors archives and reads back to the same answers")
  func archived() throws {
    let catalog = Self.catalog(seed: 9, count: 300, dimensions: 24)
    let index = try SearchIndex(
      schema: SearchSchema<Item>(catalog.document.schema), elements: catalog.document.items)
    let bytes = index.archived()
    let read = try SearchIndex<ItemID>(archive: bytes, schema: catalog.document.schema)
    #expect(read.archived() == bytes)
    let query = (0..<24).map { Float($0) - 11.5 }
    let request = ResolvedCriteria(
      SearchCriteria(vector: SearchVector(.vector(query), neighbors: 50)),
      schema: catalog.document.schema
    ).request()
    #expect(Array(read.search(request).ids) == Array(index.search(request).ids))
    #expect(read.search(request).count == 50)
  }

  struct Recipe: Identifiable, Sendable {
    var id: Int
    var name: String
    var embedding: [Float]?
  }

  @Test("the typed door: an app's own vectors, found by meaning and like its own ids")
  func typedDoor() throws {
    var random = SplitMix64(seed: 7_272)
    let recipes = (0..<120).map { index in
      Recipe(
        id: index * 10, name: "Recipe \(index)",
        embedding: index % 7 == 0
          ? nil : (0..<5).map { _ in Float.random(in: -1...1, using: &random) })
    }
    let schema = try SearchSchema<Recipe>(title: .text("name", \.name))
      .searchingByMeaning(\.embedding, dimensions: 5)
    var collection = try SearchCollection(recipes, schema: schema)
    let query: [Float] = [0.3, -0.1, 0.8, 0.05, -0.6]
    collection.filter(by: SearchCriteria(vector: SearchVector(.vector(query), neighbors: 15)))
    let expected = recipes.filter { $0.embedding != nil }.sorted {
      Self.cosine($0.embedding!, query) > Self.cosine($1.embedding!, query)
    }.prefix(15).map(\.id)
    #expect(collection.results.map(\.id) == Array(expected))
    collection.filter(by: SearchCriteria(vector: SearchVector(.like(ItemID("30")), neighbors: 3)))
    #expect(collection.results.first?.id == 30)
    #expect(collection.results.count == 3)
    #expect(throws: CatalogSchemaError.vectorDimensions(0)) {
      try SearchSchema<Recipe>(title: .text("name", \.name)).searchingByMeaning(
        \.embedding, dimensions: 0)
    }
  }

  @Test("a vector's bytes bound its exact similarity", arguments: [2, 3, 17, 128, 384])
  func bytesBoundTheSimilarity(dimensions: Int) {
    let seed = UInt64(9_000 + dimensions)
    print("bytesBoundTheSimilarity: seed \(seed)")
    var random = SplitMix64(seed: seed)
    var column = VectorColumn(dimensions: dimensions)
    var vectors: [[Float]] = []
    for index in 0..<300 {
      var vector = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) }
      // A lane that dwarfs the others, and lanes far below a byte's step.
      if index % 3 == 0 { vector[index % dimensions] = 1_000 }
      if index % 5 == 0 { vector = vector.map { $0 * 1e-6 } }
      vectors.append(vector)
      column.append(vector)
    }
    column.append(nil)
    for _ in 0..<20 {
      let query = VectorField.unit(
        (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) })
      var exact: [Int: Float] = [:]
      let slots = (0..<301).map(Int32.init)
      column.forEachSimilarity(of: slots, to: query) { exact[Int($0)] = $1 }
      var bounded = 0
      column.forEachSimilarityBounds(of: slots[...], to: query) { offset, least, most in
        let similarity = exact[offset]!
        #expect(least <= similarity && similarity <= most, "slot \(offset)")
        #expect(most - least < 0.1, "slot \(offset): a bound too loose to rule anything out")
        bounded += 1
      }
      #expect(bounded == 300 && exact.count == 300)
    }
  }

  @Test("the nearest of vectors the bytes cannot tell apart are the exact scan's")
  func nearDuplicates() throws {
    let seed: UInt64 = 7_212
    print("nearDuplicates: seed \(seed)")
    var random = SplitMix64(seed: seed)
    let dimensions = 24
    let base = (0..<dimensions).map { _ in Float.random(in: -1...1, using: &random) }
    var items: [Item] = []
    for index in 0..<2_000 {
      // Most vectors a hair from one another: only the floats order them.
      let spread: Float = index % 10 == 0 ? 0.5 : 0.0005
      let vector = base.map { $0 + Float.random(in: -spread...spread, using: &random) }
      items.append(
        Item(
          id: ItemID(String(index)),
          fields: ["title": .text("item \(index)"), "embedding": .vector(vector)]))
    }
    var schema = CatalogSchema(
      name: "close", fields: [.text("title")], titleField: "title",
      storedFields: [.text("embedding")])
    schema.vector = VectorField(field: "embedding", dimensions: dimensions)
    let index = try CatalogDocument(schema: schema, items: items).makeCollection().index
    let all = (0..<Int32(2_000)).map { $0 }
    for _ in 0..<10 {
      let query = VectorField.unit(
        base.map { $0 + Float.random(in: -0.001...0.001, using: &random) })
      for count in [1, 10, 100] {
        let fast = index.nearest(all, to: query, count: count)
        let exact = index.exactlyNearest(all, to: query, count: count)
        #expect(fast.map(\.slot) == exact.map(\.slot), "count \(count)")
        #expect(fast.map(\.similarity) == exact.map(\.similarity))
      }
    }
  }
}
