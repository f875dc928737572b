import Foundation
import Sift
import SiftTestSupport
import Testing

@testable import SiftStore

/// `CatalogExport` and an import of what it wrote: random catalogs — every kind of field, ids
/// the import numbered or the records named, edits after the import, synonyms — exported, then
/// imported into a new catalog with no flag. The copy must hold the same items in the same
/// order and answer every search with the same rows.
@Suite("Export, then import", .tags(.unit))
struct ExportTests {
  static let words = [
    "rose", "lily", "tulip", "đà", "nẵng", "münchen", "straße", "서울", "tokyo", "paris",
    "saint", "san", "santa", "red", "white", "blue",
    // A joiner first: after a quote, one `Character` with it (a city's alternate name).
    "\u{200C}\u{200C}ନଗର",
  ]

  /// A random record: a title, a list of alternates, numbers, a category, a place, and stored
  /// fields of every kind JSON has.
  static func record(_ index: Int, id: Bool, _ random: inout SplitMix64) -> String {
    func words(_ count: ClosedRange<Int>) -> String {
      (0..<Int.random(in: count, using: &random)).map { _ in
        Self.words.randomElement(using: &random)!
      }.joined(separator: " ")
    }
    var members: [(String, JSONValue)] = []
    if id { members.append(("code", .string("c\(index * 7 % 101)-\(index)"))) }
    members.append(("name", .string(words(1...3).capitalized)))
    if Bool.random(using: &random) {
      members.append(
        (
          "alternates",
          .strings((0..<Int.random(in: 0...3, using: &random)).map { _ in words(1...2) })
        ))
    }
    if Int.random(in: 0..<4, using: &random) > 0 {
      members.append(("population", .number(Double(Int.random(in: 0...9_000_000, using: &random)))))
    }
    members.append(
      ("country", .string(["FR", "DE", "VN", "KR", "JP"].randomElement(using: &random)!)))
    members.append(("lat", .number(Double.random(in: -80...80, using: &random).rounded() / 1)))
    members.append(("lon", .number(Double.random(in: -170...170, using: &random).rounded())))
    switch Int.random(in: 0..<6, using: &random) {
    case 0: members.append(("note", .string(words(0...4))))
    case 1: members.append(("note", .bool(Bool.random(using: &random))))
    case 2: members.append(("note", .object([("k", .number(1))])))
    case 3: members.append(("rank", .number(Double(Int.random(in: 1...5, using: &random)))))
    case 4:
      // Texts a CSV cell could misread: a list's look, a quote first, digits kept as text.
      let odd = [
        "[draft] \(words(1...2))", "\"quoted\" \(words(1...1))", "0042", "[\"x\"]",
        "\"\u{200C}joined",
      ]
      members.append(("note", .string(odd.randomElement(using: &random)!)))
    default: break
    }
    return JSONValue.object(members).text
  }

  @Test(
    "a random catalog exported and imported with its settings answers every search as the original",
    arguments: [
      (61, true, .jsonLines), (62, false, .jsonLines), (63, true, .jsonLines), (64, true, .csv),
      (65, false, .csv),
    ] as [(UInt64, Bool, CatalogExport.Format)])
  func roundTrip(seed: UInt64, namedIDs: Bool, format: CatalogExport.Format) async throws {
    print("export seed \(seed), \(format)")
    var random = SplitMix64(seed: seed)
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    let records = (0..<Int.random(in: 40...120, using: &random)).map {
      Self.record($0, id: namedIDs, &random)
    }
    let file = try folder.write("cities.jsonl", records.joined(separator: "\n") + "\n")
    var spec = ImportSpec(
      titleField: "name", textFields: ["alternates"], numberFields: ["population"],
      categoryField: "country", idField: namedIDs ? "code" : nil,
      rankingField: RankingField(parsing: "population"),
      labels: ["population": "People"], location: LocationFields(parsing: "lat,lon"))
    spec.catalogTitle = "Cities"
    _ = try CatalogImporter.run(file: file, into: folder.file("original.sqlite"), spec: spec)

    // Edits after the import: numbered adds, updates, deletes, a deleted id added again (it
    // takes a new place), and synonyms.
    let store = try CatalogStore.open(at: folder.file("original.sqlite"), concurrentReads: true)
    let catalog = try StoredCatalog(name: "original", store: store, warmsUp: false)
    for serial in 0..<20 {
      let ids = try store.loadDocument().items.map(\.id)
      let fields: [String: FieldValue] = [
        "name": .text("Edit \(serial) \(Self.words.randomElement(using: &random)!)"),
        "country": .text("FR"), "population": .number(Double(serial * 1000)),
      ]
      let id = ids[Int.random(in: 0..<ids.count, using: &random)]
      switch Int.random(in: 0..<4, using: &random) {
      case 0: _ = try await catalog.commit(.add(nil, fields: fields))
      case 1: _ = try await catalog.commit(.update(Item(id: id, fields: fields)))
      case 2: _ = try await catalog.commit(.delete(id))
      default:
        _ = try await catalog.commit(.delete(id))
        _ = try await catalog.commit(.add(id, fields: fields))
      }
    }
    _ = try await catalog.replaceSynonyms(
      Synonyms([.init(group: ["ny", "new york"]), .init(["rose"], to: ["lily"])]))

    var lines: [String] = []
    var settings: CatalogExport.Settings?
    try await CatalogExport.write(catalog, format: format, settings: { settings = $0 }) {
      lines.append($0)
    }
    catalog.close()
    // JSON Lines hold their settings; a CSV file's are handed to the import.
    #expect(lines.first?.hasPrefix("{\"sift_settings\":") == (format == .jsonLines))
    let exported = try folder.write(
      "export.\(format.rawValue)", lines.joined(separator: "\n") + "\n")
    let copyURL = folder.file("copy.sqlite")
    let summary = try CatalogImporter.run(
      file: exported, into: copyURL, spec: ImportSpec(titleField: ""),
      settings: format == .csv ? settings : nil)
    #expect(summary.added == lines.count - 1)

    let original = try CatalogStore.open(at: folder.file("original.sqlite")).loadDocument()
    let copy = try CatalogStore.open(at: copyURL).loadDocument()
    #expect(copy.items == original.items, "the same items, fields and order")
    #expect(copy.schema.synonyms == original.schema.synonyms)
    #expect(copy.schema.scopes == original.schema.scopes)
    #expect(copy.schema.rankingField == original.schema.rankingField)
    #expect(copy.schema.location == original.schema.location)
    #expect(copy.schema.title == "Cities")
    #expect(copy.schema.allFields.map(\.label) == original.schema.allFields.map(\.label))

    var searchOriginal = SearchController(collection: try original.makeCollection())
    var searchCopy = SearchController(collection: try copy.makeCollection())
    searchOriginal.send(.focus)
    searchCopy.send(.focus)
    for _ in 0..<60 {
      let word = Self.words.randomElement(using: &random)!
      let query =
        switch Int.random(in: 0..<4, using: &random) {
        case 0: String(word.prefix(Int.random(in: 1...word.count, using: &random)))
        case 1: word + " " + Self.words.randomElement(using: &random)!
        case 2: "ny"
        default: word + "x"  // a typo
        }
      searchOriginal.send(.setText(query))
      searchCopy.send(.setText(query))
      #expect(searchCopy.rows == searchOriginal.rows, "\(query)")
    }
  }

  @Test("settings that do not read name line 1 of the file")
  func badSettings() throws {
    let folder = try TemporaryFolder()
    defer { folder.cleanup() }
    for (text, reason) in [
      (
        "{\"sift_settings\":{\"version\":9,\"id_field\":\"id\",\"schema\":{}}}\n",
        "export version 9"
      ),
      ("{\"sift_settings\":[1]}\n", "the settings do not read"),
      ("{\"sift_settings\":{},\"x\":1}\n", "holds more than \"sift_settings\""),
    ] {
      let file = try folder.write("bad.jsonl", text + "{\"id\":1,\"name\":\"A\"}\n")
      #expect {
        _ = try CatalogImporter.run(
          file: file, into: folder.file("bad.sqlite"), spec: ImportSpec(titleField: "name"))
      } throws: { error in
        "\(error)".contains("bad.jsonl:1: the export's settings: ") && "\(error)".contains(reason)
      }
      #expect(!FileManager.default.fileExists(atPath: folder.file("bad.sqlite").path))
    }
  }
}
