import SiftTestSupport
import Testing

@testable import Sift

/// The ranking rules (docs/ranking.md), one at a time: each case is a pair of items that every rule before
/// the one under test leaves tied (or favours the same way), and that the rule under test puts
/// in the order given, against popularity and catalog order where they would say otherwise.
@Suite("Relevance rules", .tags(.unit))
struct RelevanceTests {
  static func schema(ranking: RankingField? = RankingField("population")) -> CatalogSchema {
    CatalogSchema(
      name: "places",
      fields: [
        .text("name"), .text("alternates", names: true), .text("region"), .number("population"),
        .category("country"),
      ],
      titleField: "name", categoryField: "country", rankingField: ranking)
  }

  static func item(
    _ id: String, _ name: String, alternates: [String] = [], region: String? = nil,
    population: Double? = nil
  ) -> Item {
    var fields: [String: FieldValue] = ["name": .text(name), "alternates": .texts(alternates)]
    if let region { fields["region"] = .text(region) }
    if let population { fields["population"] = .number(population) }
    return Item(id: ItemID(id), fields: fields)
  }

  struct Case: CustomTestStringConvertible, Sendable {
    var rule: String
    var query: String
    /// The item that must come first, then the one after it (listed second in the catalog
    /// and more popular, so neither catalog order nor popularity explains the order).
    var first: Item
    var second: Item
    var typos: TypoTolerance = .automatic
    var testDescription: String { "\(rule): \"\(query)\"" }
  }

  static let cases: [Case] = [
    Case(
      rule: "typos: an exact match before a near spelling", query: "lisbn ",
      first: item("a", "Lisbnia", population: 10), second: item("b", "Lisbon", population: 500),
      typos: TypoTolerance(threshold: 5)),
    Case(
      rule: "typing: an exact start before a misspelt title, however much larger",
      query: "lisbn",
      first: item("a", "Lisbnia", population: 10),
      second: item("b", "Lisbon", population: 500_000),
      typos: TypoTolerance(threshold: 5)),
    Case(
      rule: "typing: an exact start before a misspelt start a hundred times larger",
      query: "lisbn",
      first: item("a", "Lisbnia", population: 1_000),
      second: item("b", "Lisbonia", population: 100_000),
      typos: TypoTolerance(threshold: 5)),
    Case(
      rule: "typing: a weak exact start before the near spellings it does not hold back",
      query: "sendia",
      first: item("a", "Sendiaville", population: 50),
      second: item("b", "Sendai", population: 1_000_000)),
    Case(
      rule: "where words match: initial consonants at a word's start before inside a word",
      query: "ㄷㅇ",
      first: item("german", "독일어", population: 10),
      second: item("akkadian", "아카드어", population: 500)),
    Case(
      rule: "where words match: a misspelt word start before a match inside a word",
      query: "tolde",
      first: item("a", "Toledo", population: 10),
      second: item("b", "Batolder", population: 500)),
    Case(
      rule: "exactness: an alternate name equal to a finished query before a longer title",
      query: "new york ",
      first: item("a", "New York City", alternates: ["New York"], population: 10),
      second: item("b", "New York Mills", population: 500)),
    Case(
      rule: "exactness: a value starting with the query before words out of order",
      query: "san fe",
      first: item("a", "San Fernando", population: 10),
      second: item("b", "Feira de Santana", population: 500)),
    Case(
      rule: "exactness: every term starting a word before a substring", query: "rose",
      first: item("a", "Red Rose", population: 10), second: item("b", "Primrose", population: 500)
    ),
    Case(
      rule: "exactness: a finished word whole before a word it only begins", query: "seven ",
      first: item("a", "The Seven Samurai", population: 10),
      second: item("b", "Seventh Seal", population: 500)),
    Case(
      rule: "exactness: a value that starts with the finished word, whole", query: "seven ",
      first: item("a", "Seven Pounds", population: 10),
      second: item("b", "Seventh Seal", population: 500)),
    Case(
      rule: "exactness: each finished word whole, the last one typed", query: "new yor",
      first: item("a", "Escape from New York", population: 10),
      second: item("b", "Newport Yorkshire", population: 500)),
    Case(
      rule: "attribute: a name before a field that describes the item", query: "lyon ",
      first: item("a", "Old Lyon", population: 10),
      second: item("b", "Villeurbanne", region: "Old Lyon", population: 500)),
    Case(
      rule: "exactness: a name starting with the query before a describing value equal to it",
      query: "lyon ",
      first: item("a", "Lyon Centre", population: 10),
      second: item("b", "Villeurbanne", region: "Lyon", population: 500)),
    Case(
      rule: "attribute: the field of the value equal to the query, not of a word elsewhere",
      query: "asmar",
      first: item("a", "Āsmār", population: 10),
      second: item("b", "Asmara", alternates: ["Asmar"], population: 500)),
    Case(
      rule: "popularity: a title and another name starting with a finished query are names alike",
      query: "san jo ",
      first: item("a", "Jose Panganiban", alternates: ["San Jose Panganiban"], population: 500),
      second: item("b", "San José del Monte", population: 10)),
    Case(
      rule: "typing: the title equal to the word being typed before a more popular start",
      query: "war",
      first: item("a", "War", population: 10),
      second: item("b", "Warsaw", alternates: ["War"], population: 500)),
    Case(
      rule: "typing: popularity before an alternate name equal to the word being typed",
      query: "war",
      first: item("a", "Warsaw", population: 1_700_000),
      second: item("b", "Waris", alternates: ["WAR"], population: 10)),
    Case(
      rule: "typing: a thousand times the people before a title that starts with the query",
      query: "san jo",
      first: item(
        "a", "Jose Panganiban", alternates: ["San Jose Panganiban"], population: 500_000),
      second: item("b", "San José del Monte", population: 10)),
    Case(
      rule: "popularity: before word position", query: "rose",
      first: item("a", "Big Old Rose", population: 500),
      second: item("b", "Old Rose", population: 10)),
    Case(
      rule: "popularity: more people first", query: "paris",
      first: item("a", "Paris", population: 2_000_000),
      second: item("b", "Paris", population: 25_000)),
    Case(
      rule: "catalog order: what nothing else separates", query: "paris",
      first: item("a", "Paris", population: 100), second: item("b", "Paris", population: 100)),
  ]

  @Test("each rule decides a pair on its own", arguments: cases)
  func rule(_ test: Case) throws {
    // Popularity and catalog order would put `second` first wherever the rule does not decide
    // (except in the two cases about them, where the items are given in their own order). In
    // the "typing" cases popularity is what decides, and catalog order and the finished word's
    // exactness put `second` first.
    let ordered = test.rule.hasPrefix("popularity") || test.rule.hasPrefix("catalog")
    // A magnitude is a place in the popularity order: among two items it says little, so the
    // "typing" cases sit among 98 others of 100 people that match none of the queries.
    let others = (0..<(test.rule.hasPrefix("typing") ? 98 : 0)).map {
      Self.item("other \($0)", "Qq", population: 100)
    }
    let items = (ordered ? [test.first, test.second] : [test.second, test.first]) + others
    var collection = try FilteredCollection(
      schema: Self.schema(), items: items, typoTolerance: test.typos)
    collection.filter(by: SearchCriteria(text: test.query))
    #expect(collection.rows == [test.first.id, test.second.id])
    // The reference ranks them the same way.
    var reference = ReferenceMatcher(schema: Self.schema())
    reference.typos = test.typos
    #expect(
      reference.rows(items: items, criteria: SearchCriteria(text: test.query)) == collection.rows)
  }

  @Test("roles: a describing value equal to the query never beats a name that starts with it")
  func describingFields() throws {
    let schema = CatalogSchema(
      name: "movies", fields: [.text("title"), .text("genres"), .number("votes")],
      titleField: "title", rankingField: RankingField("votes"))
    func movie(_ id: String, _ title: String, genres: [String], votes: Double) -> Item {
      Item(
        id: ItemID(id),
        fields: ["title": .text(title), "genres": .texts(genres), "votes": .number(votes)])
    }
    // Stripes is a War film, and far more voted for; War of the Worlds is named so.
    let items =
      [
        movie("stripes", "Stripes", genres: ["Comedy", "War"], votes: 40_000),
        movie("worlds", "War of the Worlds", genres: ["Sci-Fi"], votes: 300),
        movie("games", "WarGames", genres: ["Thriller"], votes: 200),
      ] + (0..<20).map { movie("other \($0)", "Qq", genres: ["Drama"], votes: 1_000) }
    var collection = try FilteredCollection(schema: schema, items: items)
    let reference = ReferenceMatcher(schema: schema)
    // Typed, WarGames starts with the word too; finished, "war" is a whole word of Stripes'
    // genres, and only begins WarGames.
    for (query, expected) in [
      ("war", ["worlds", "games", "stripes"]), ("war ", ["worlds", "stripes", "games"]),
    ] {
      collection.filter(by: SearchCriteria(text: query))
      #expect(collection.rows.map(\.description) == expected, "\(query)")
      #expect(
        reference.rows(items: items, criteria: SearchCriteria(text: query)) == collection.rows)
    }
  }

  @Test("roles: a searched category is the weakest text, after names and describing fields")
  func categoryIsWeakestText() throws {
    let schema = CatalogSchema(
      name: "pets",
      fields: [
        .text("name"), .text("breed"), .category("species", searchable: true), .number("age"),
      ],
      titleField: "name", categoryField: "species", rankingField: RankingField("age"))
    func pet(_ id: String, _ name: String, _ species: String, breed: String, age: Double) -> Item {
      Item(
        id: ItemID(id),
        fields: [
          "name": .text(name), "species": .text(species), "breed": .text(breed),
          "age": .number(age),
        ])
    }
    // Catalog order and popularity (age) both favour the goats: the rule alone orders them.
    let items =
      [
        pet("truffle", "Truffle", "Goat", breed: "Miniature", age: 15),
        pet("billy", "Billy", "Dog", breed: "Goatherd Mix", age: 12),
        pet("goat", "Goat", "Dog", breed: "Bernese", age: 2),
        pet("luna-dog", "Luna", "Dog", breed: "Australian Cattle Dog", age: 14),
        pet("luna-cat", "Luna", "Cat", breed: "Domestic Shorthair", age: 1),
      ] + (0..<20).map { pet("other \($0)", "Qq", "Dog", breed: "Boxer", age: 5) }
    var collection = try FilteredCollection(schema: schema, items: items)
    let reference = ReferenceMatcher(schema: schema)
    for (query, expected) in [
      ("goat", ["goat", "billy", "truffle"]), ("luna cat ", ["luna-cat", "luna-dog"]),
      ("cat", ["luna-dog", "luna-cat"]),
    ] {
      collection.filter(by: SearchCriteria(text: query))
      #expect(collection.rows.map(\.description) == expected, "\(query)")
      #expect(
        reference.rows(items: items, criteria: SearchCriteria(text: query)) == collection.rows)
    }
    // Not searched, the category finds nothing; its token still filters.
    var unsearched = schema
    unsearched.fields[2].isSearchable = false
    var other = try FilteredCollection(schema: unsearched, items: items)
    other.filter(by: SearchCriteria(text: "goat"))
    #expect(other.rows.map(\.description) == ["goat", "billy"])
    other.filter(by: SearchCriteria(text: "species:goat"))
    #expect(other.rows.map(\.description) == ["truffle"])
  }

  @Test("roles: an other name equal to the query is a name, as the title is")
  func otherNames() throws {
    let items =
      [
        Self.item("hamlet", "Wien", population: 40),
        Self.item("vienna", "Vienna", alternates: ["Wien", "Vídeň"], population: 1_900_000),
      ] + (0..<20).map { Self.item("other \($0)", "Qq", population: 1_000) }
    var collection = try FilteredCollection(schema: Self.schema(), items: items)
    collection.filter(by: SearchCriteria(text: "wien "))
    // Both names equal the word: popularity decides.
    #expect(Array(collection.rows) == ["vienna", "hamlet"])
    // Were the alternates a field that describes the item, the hamlet's name would come first.
    var describing = Self.schema()
    describing.fields[1].namesItem = false
    var other = try FilteredCollection(schema: describing, items: items)
    other.filter(by: SearchCriteria(text: "wien "))
    #expect(Array(other.rows) == ["hamlet", "vienna"])
  }

  /// Every cut of a word, from an array of its scalars: the reference for `spaceMoves`, which
  /// cuts the word's own string.
  @Test(
    "a word's spaces move at every letter, in any script",
    arguments: ["ab", "xmen", "spiderman", "мосвка", "đà", "北京市", "a\u{301}b"])
  func spaceMovesCutEveryLetter(word: String) {
    let request = ResolvedCriteria(SearchCriteria(text: word), schema: Self.schema())
      .request(typos: .automatic)
    let typed = request.searchedByUser.first!.textCondition!.needle
    let letters = Array(typed.unicodeScalars)
    var expected: [String] = []
    if (2...MatchRequest.longestSplitWord).contains(letters.count) {
      for cut in 1..<letters.count {
        let left = String(String.UnicodeScalarView(letters[..<cut]))
        let right = String(String.UnicodeScalarView(letters[cut...]))
        for separator in letters.count <= 4 ? [" ", "-", "."] : [" ", "-"] {
          expected.append(left + separator + right)
        }
      }
    }
    #expect(!expected.isEmpty, "\(word)")
    #expect(request.spaceMoves.map(\.condition.needle) == expected, "\(word)")
    #expect(request.spaceMoves.allSatisfy { $0.condition.synonymOf == typed })
  }

  @Test("joined, split and dotted words: spiderman, laguardia, et, xmen, sun flower")
  func spacesMoved() throws {
    let schema = CatalogSchema(
      name: "titles", fields: [.text("title"), .text("about")], titleField: "title")
    let titles = [
      "Spider-Man", "La Guardia Airport", "E.T. the Extra-Terrestrial", "X-Men", "Sunflower",
      "The Tree", "Spiders of Manhattan", "Lagoon", "Men in Black", "Sun Valley",
    ]
    let items = titles.enumerated().map { index, title in
      Item(id: ItemID(String(index)), fields: ["title": .text(title)])
    }
    var collection = try FilteredCollection(schema: schema, items: items)
    let reference = ReferenceMatcher(schema: schema)
    for (query, expected) in [
      ("spiderman", "Spider-Man"), ("spiderm", "Spider-Man"), ("laguardia", "La Guardia Airport"),
      ("et ", "E.T. the Extra-Terrestrial"), ("xmen", "X-Men"), ("sun flower", "Sunflower"),
    ] {
      collection.filter(by: SearchCriteria(text: query))
      let found = collection.rows.map { collection.item(id: $0)?["title"]?.strings.first ?? "" }
      #expect(found.first == expected, "\(query): \(found)")
      #expect(
        reference.rows(items: items, criteria: SearchCriteria(text: query)) == collection.rows,
        "\(query)")
      // Said in --explain — but for "spiderm", whose near spelling of Spider's start is
      // found first.
      let explanation = try #require(collection.explanation(forRow: 0))
      #expect(
        query == "spiderm" || explanation.synonym?.hasSuffix("(spaces moved)") == true,
        "\(query)")
    }
    // Marked where the moved space found it.
    collection.filter(by: SearchCriteria(text: "spiderman"))
    let marked = try #require(collection.explanation(forRow: 0))
    #expect(marked.highlights.map(\.value) == ["Spider-Man"])
    #expect(marked.highlights.first?.characterRanges == [0..<10])
    // "et" never finds "the tree", whose "e t" spans no word's start.
    collection.filter(by: SearchCriteria(text: "et "))
    #expect(!collection.rows.contains("5"))
    // Counted as near, not as typed: "Items found: 1 (0 exact, 1 near spelling)".
    collection.filter(by: SearchCriteria(text: "laguardia"))
    #expect(collection.rows == ["1"] && collection.exactMatchCount == 0)
    // The words with their spaces moved join near spellings, a moved space one edit: "xmen"
    // finds X-Men written apart and Xman one letter away, equal in typos and exactness.
    let xman = Item(id: "10", fields: ["title": .text("Xman")])
    try collection.add(xman)
    collection.filter(by: SearchCriteria(text: "xmen"))
    #expect(collection.rows == ["3", "10"])
    #expect(collection.explanation(forRow: 0)?.rank.typos == 1)
    #expect(
      reference.rows(items: items + [xman], criteria: SearchCriteria(text: "xmen"))
        == collection.rows)
    // An edit lands where a search from scratch puts it: a new film found by "spiderman" only
    // with the space moved, and one that stops being found.
    collection.filter(by: SearchCriteria(text: "spiderman"))
    #expect(collection.rows == ["0"])
    let added = try collection.add(Item(id: "11", fields: ["title": .text("The Spider Man")]))
    #expect(collection.rows == ["0", "11"] && added.inserted == [1])
    try collection.update(Item(id: "0", fields: ["title": .text("Spider Woman")]))
    #expect(collection.rows == ["11"])
    // Another word beside the moved one is a word as typed, not a synonym's: "spiderman 2"
    // ranks Spider-Man 2 as any two-word match.
    try collection.add(Item(id: "12", fields: ["title": .text("Spider-Man 2")]))
    collection.filter(by: SearchCriteria(text: "spiderman 2"))
    #expect(collection.rows == ["12"])
    #expect(collection.explanation(forRow: 0)?.rank.viaSynonym == false)
    // The words as typed come first where they start a word: "sun" finds Sun Valley and
    // Sunflower as typed, no variant looked for.
    collection.filter(by: SearchCriteria(text: "sun"))
    #expect(Set(collection.rows) == ["4", "9"])
  }

  @Test("typing: only an exact start weighing 4 or more holds near spellings back")
  func strongStartsHoldNearSpellingsBack() throws {
    func search(
      _ text: String, town: Double, ranking: RankingField? = RankingField("population")
    ) throws -> (rows: [ItemID], near: Bool) {
      // Among 20 items: the first two places are the most popular tenth (magnitude 2).
      let items =
        [
          Self.item("town", "Sendiaville", population: town),
          Self.item("city", "Sendai", population: 10_000_000),
        ] + (1...18).map { Self.item("other \($0)", "Qq", population: Double($0) * 1_000) }
      var collection = try FilteredCollection(schema: Self.schema(ranking: ranking), items: items)
      collection.filter(by: SearchCriteria(text: text))
      let reference = ReferenceMatcher(schema: Self.schema(ranking: ranking))
      #expect(reference.rows(items: items, criteria: SearchCriteria(text: text)) == collection.rows)
      return (Array(collection.rows), collection.includesNearSpellings)
    }
    // Sendiaville at 17,500 people is third of 20, not among the most popular tenth: it weighs
    // 1 + 2, weak, so near spellings are looked for, and Sendai (one edit) comes after it.
    #expect(try search("sendia", town: 17_500) == (["town", "city"], true))
    // At 18,500 it is second: magnitude 2, and 2 + 2 = 4 is strong; nothing else is looked for.
    #expect(try search("sendia", town: 18_500) == (["town"], false))
    // The same at a thousand times the people: a place, never the digits.
    #expect(try search("sendia", town: 18_500_000) == (["town"], false))
    // Finished, or without a ranking field, every exact word start counts, as before.
    #expect(try search("sendia ", town: 17_500) == (["town"], false))
    #expect(try search("sendia", town: 17_500, ranking: nil) == (["town"], false))
  }

  @Test("typing: an obscure item's word start holds near spellings back with several words neither")
  func weakStartsOfSeveralWords() throws {
    let items =
      [
        Self.item("doctrine", "The Monroe Doctrine", population: 13),
        Self.item("doctor", "The Doctor", population: 5_000),
      ] + (1...18).map { Self.item("other \($0)", "Qq", population: Double($0) * 1_000) }
    for (text, ranking, expected, near) in [
      // Typed: the Monroe Doctrine is last of 20, a weak start; The Doctor is one edit away.
      ("the doctr", RankingField("population"), ["doctrine", "doctor"], true),
      // Finished, or without a ranking field, every exact word start counts, as before.
      ("the doctr ", RankingField("population"), ["doctrine"], false),
      ("the doctr", nil, ["doctrine"], false),
    ] {
      let schema = Self.schema(ranking: ranking)
      var collection = try FilteredCollection(schema: schema, items: items)
      collection.filter(by: SearchCriteria(text: text))
      #expect(collection.rows.map(\.description) == expected, "\(text)")
      #expect(collection.includesNearSpellings == near, "\(text)")
      #expect(
        ReferenceMatcher(schema: schema).rows(items: items, criteria: SearchCriteria(text: text))
          == collection.rows)
    }
  }

  @Test("popularity: descending by default, ascending on request, missing values last")
  func popularityOrder() throws {
    let items = [
      Self.item("small", "Springfield", population: 1_000),
      Self.item("none", "Springfield"),
      Self.item("large", "Springfield", population: 150_000),
    ]
    for (ranking, expected) in [
      (RankingField("population"), ["large", "small", "none"]),
      (RankingField("population", ascending: true), ["small", "large", "none"]),
      (nil, ["small", "none", "large"]),
    ] {
      var collection = try FilteredCollection(
        schema: Self.schema(ranking: ranking), items: items)
      collection.filter(by: SearchCriteria(text: "spring"))
      #expect(collection.rows.map(\.rawValue) == expected, "\(String(describing: ranking))")
      // Not filtering shows everything in the same order.
      collection.filter(by: .everything)
      #expect(collection.rows.map(\.rawValue) == expected)
    }
  }

  @Test(
    "many matches are ordered on every core as a plain comparison sort orders them", .tags(.large),
    .notInFastRun)
  func manyMatchesInParallel() throws {
    // Enough items that a one-letter term's matches are sorted in parts, one per core
    // (`SearchIndex.order`: at least 100,000 slots a part); few letters and populations, so
    // that every rule, popularity and catalog order each decide many ties.
    var random = SplitMix64(seed: 424_242)
    let syllables = ["a", "ba", "ab", "ca", "b", "ac", "cab", " "]
    let items = (0..<240_000).map { number in
      let name = (0..<Int.random(in: 1...4, using: &random)).map { _ in
        syllables.randomElement(using: &random)!
      }.joined()
      let population = Int.random(in: 0...9, using: &random)
      return Self.item(
        "i\(number)", name, alternates: Bool.random(using: &random) ? ["b a"] : [],
        population: population == 0 ? nil : Double(population))
    }
    var collection = try FilteredCollection(schema: Self.schema(), items: items)
    let index = collection.index
    for query in ["a", "c", "b"] {
      collection.filter(by: SearchCriteria(text: query))
      let entries = collection.matches.entries
      #expect(entries.count > 100_000, "\(query): too few matches to sort in parts")
      // The rules' ranks are checked against the reference matcher elsewhere; here, their
      // order: a plain comparison sort of the same matches.
      let expected = entries.sorted {
        ($0.rank, index.storage.popularityKey(of: Int($0.slot)), index.orderKeys[Int($0.slot)])
          < ($1.rank, index.storage.popularityKey(of: Int($1.slot)), index.orderKeys[Int($1.slot)])
      }
      // The first row that differs, not the arrays: a diff of 100,000 rows takes minutes.
      let firstDifference = entries.indices.first { entries[$0] != expected[$0] }
      #expect(firstDifference == nil, "\(query)")
    }
  }

  @Test("an edit lands where the rules put it")
  func editsKeepTheOrder() throws {
    var collection = try FilteredCollection(
      schema: Self.schema(),
      items: [Self.item("a", "Paris", population: 100), Self.item("b", "Paris", population: 300)])
    collection.filter(by: SearchCriteria(text: "paris"))
    #expect(collection.rows == ["b", "a"])
    let changes = try collection.add(Self.item("c", "Paris", population: 200))
    #expect(collection.rows == ["b", "c", "a"])
    #expect(changes.inserted == [1])
    try collection.update(Self.item("a", "Paris", population: 1_000))
    #expect(collection.rows == ["a", "b", "c"])
    #expect(collection.row(of: "c") == 2)
  }

  @Test("big numbers and counts are grouped for reading; years are not")
  func grouping() {
    #expect(FieldValue.grouped(1_276_000) == "1,276,000")
    #expect(FieldValue.grouped(2007) == "2007")
    #expect(FieldValue.grouped(10_000) == "10,000")
    #expect(FieldValue.grouped(-12_345.5) == "-12,345.5")
    #expect(
      FieldDefinition.number("population").display(.number(8_804_190), maximumValues: 4)
        == "8,804,190")
    let indicator = ResultsIndicator(isFiltering: true, matchCount: 189_947, totalCount: 234_908)
    #expect(indicator.text == "Items found: 189,947")
    #expect(indicator.summary == "Filtering 189,947 of 234,908")
  }

  @Test("RankingField reads FIELD, FIELD:asc and FIELD:desc")
  func rankingFieldSyntax() {
    #expect(RankingField(parsing: "population") == RankingField("population"))
    #expect(RankingField(parsing: "population:desc") == RankingField("population"))
    #expect(RankingField(parsing: "price:ASC") == RankingField("price", ascending: true))
    #expect(RankingField(parsing: "price:up") == nil)
    #expect(RankingField(parsing: ":asc") == nil)
    #expect(RankingField("population").description == "population:desc")
  }

  @Test("a ranking field that is missing or not a number is a schema error")
  func rankingFieldValidation() {
    var schema = Self.schema(ranking: RankingField("people"))
    #expect(throws: CatalogSchemaError.missingField("people", role: "ranking")) {
      try schema.validate()
    }
    schema.rankingField = RankingField("name")
    #expect(throws: CatalogSchemaError.wrongKind("name", role: "ranking", expected: .number)) {
      try schema.validate()
    }
    #expect(
      CatalogSchemaError.wrongKind("name", role: "ranking", expected: .number).description
        == "the ranking field \"name\" must be a number field")
  }

  @Test("why it matched: the rule values, the value that decided, popularity and ranges")
  func explanation() throws {
    var collection = try FilteredCollection(
      schema: Self.schema(),
      items: [
        Self.item(
          "m", "Munich", alternates: ["München", "Monaco di Baviera"], population: 1_500_000)
      ])
    collection.filter(by: SearchCriteria(text: "munchen "))
    let explanation = try #require(collection.explanation(forRow: 0))
    // A ranking field breaks ties of equal values: no agreement in the rank.
    // An other name is a name: attribute 0, as the title's.
    #expect(
      explanation.rank == MatchRank(typos: 0, exactness: .equalsQuery, attribute: 0, position: 0))
    #expect(!explanation.ranksByAgreement)
    // Still typing: an alternate name equal to the word is a start like any other.
    collection.filter(by: SearchCriteria(text: "munchen"))
    // The only item is first of one: magnitude 1, and an alternate name equal to the word 4
    // points; 31 - 5 = 26.
    #expect(
      collection.explanation(forRow: 0)?.rank
        == MatchRank(typos: 0, exactness: .startsValue, attribute: 26, position: 0))
    #expect(collection.explanation(forRow: 0)?.typedWeight == .init(magnitude: 1, points: 4))
    collection.filter(by: SearchCriteria(text: "munchen "))
    #expect(explanation.exactField == "alternates" && explanation.exactValue == "München")
    #expect(explanation.field == "alternates" && explanation.value == "München")
    #expect(explanation.rankingField == "population" && explanation.popularity == 1_500_000)
    #expect(explanation.highlights.map(\.value) == ["München"])
    #expect(explanation.highlights.first?.characterRanges == [0..<7])
    #expect(collection.explanation(forRow: 1) == nil)
  }
}
