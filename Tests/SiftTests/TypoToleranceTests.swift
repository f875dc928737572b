import SiftTestSupport
import Testing

@testable import Sift

/// Typo tolerance (docs/ranking.md): budgets by length, the first letter's double cost, swaps, the
/// terms that never have typos, the threshold, and the scripts it works in.
@Suite("Typo tolerance", .tags(.unit))
struct TypoToleranceTests {
  static let places = [
    "Lisbon", "Amsterdam", "Tokyo", "Lyon", "Cat Island", "Ginger Bay", "Москва", "Αθήνα",
    "Zürich", "New York City", "서울",
  ]

  static func collection(_ typos: TypoTolerance = .automatic) throws -> FilteredCollection {
    let schema = CatalogSchema(
      name: "places", fields: [.text("name"), .number("year")], titleField: "name")
    let items = places.enumerated().map { index, name in
      Item(
        id: ItemID(String(index)),
        fields: ["name": .text(name), "year": .number(Double(2000 + index))])
    }
    return try FilteredCollection(schema: schema, items: items, typoTolerance: typos)
  }

  static func titles(_ query: String, _ typos: TypoTolerance = .automatic) throws -> [String] {
    var collection = try collection(typos)
    collection.filter(by: SearchCriteria(text: query))
    return collection.rows.compactMap { collection.item(id: $0)?["name"]?.displayText }
  }

  @Test(
    "budget: none below 4 letters (one for 3 anchored by another word), one from 4, two from 8; the first letter costs two",
    arguments: [
      ("cta", [String]()),  // 3 letters: no typos
      ("lyom", ["Lyon"]),  // 4 letters, one substitution
      ("lyxx", []),  // two edits are over a budget of one
      ("lsibon", ["Lisbon"]),  // a swap of two neighbours is one edit
      ("lisbn", ["Lisbon"]),  // a deletion
      ("zuirch", ["Zürich"]),  // folded first: "zurich", then a swap
      ("amstred", ["Amsterdam"]),  // a misspelt beginning of a word
      ("amstredam", ["Amsterdam"]),  // 9 letters, two edits
      ("amxxxrdam", []),  // 9 letters, three edits
      ("pokyo", []),  // the first letter: two edits against a budget of one
      ("xtokyo", []),  // an extra first letter also costs two
      ("llisbon", ["Lisbon"]),  // a doubled first letter: the second one is the edit
      ("isbon", ["Lisbon"]),  // a dropped first letter: the rest is found inside the word
      ("xmsterdam", ["Amsterdam"]),  // 9 letters: the first letter fits a budget of two
      ("new yrok", ["New York City"]),  // each term on its own budget
      ("nwe york", ["New York City"]),  // three letters, anchored by a word of four: one edit
      ("nwe", []),  // alone, three letters stay exact
      ("nwe yo", []),  // no word of four letters or more anchors it
      ("cta island", ["Cat Island"]),  // a swap in the short word, the long one exact
      ("xat island", []),  // the first letter still costs two
      ("мосвка", ["Москва"]),  // Cyrillic
      ("αθνα", ["Αθήνα"]),  // Greek, folded without its accent
    ])
  func budget(_ query: String, _ expected: [String]) throws {
    #expect(try Self.titles(query) == expected)
  }

  @Test(
    "never for numbers, phrases, field filters or initial consonants",
    arguments: ["2099", "\"lisbn\"", "name:lisbn", "ㅅㅇㅇ", "year:2099"])
  func neverFor(_ query: String) throws {
    #expect(try Self.titles(query).isEmpty)
  }

  @Test("only below the threshold, and off when asked")
  func threshold() throws {
    #expect(try Self.titles("lisbo") == ["Lisbon"])  // exact: no near spellings added
    var collection = try Self.collection()
    collection.filter(by: SearchCriteria(text: "lisbn"))
    #expect(collection.includesNearSpellings && collection.exactMatchCount == 0)
    collection.filter(by: SearchCriteria(text: "lisbo"))
    #expect(!collection.includesNearSpellings && collection.exactMatchCount == 1)
    #expect(try Self.titles("lisbn", .off).isEmpty)
    collection.typoTolerance = .off
    collection.filter(by: SearchCriteria(text: "lisbn"))
    #expect(collection.rows.isEmpty && !collection.includesNearSpellings)
    collection.typoTolerance = .automatic
    #expect(collection.rows.count == 1, "changing the option searches again")
  }

  @Test("a term with punctuation is looked for word by word: each word its own budget")
  func punctuatedTerms() throws {
    let schema = CatalogSchema(name: "t", fields: [.text("name")], titleField: "name")
    let items = ["Cluj-Napoca", "Saint-Louis", "Napoca Cluj", "Port-au-Prince"].enumerated().map {
      Item(id: ItemID(String($0)), fields: ["name": .text($1)])
    }
    var collection = try FilteredCollection(schema: schema, items: items)
    let cases: [(String, [ItemID])] = [
      ("cluj-napcoa", ["0", "2"]), ("cjluj-napoca", ["0", "2"]), ("saint-lous", ["1"]),
      // An apostrophe joins the words it sits between (folding drops it); a period splits.
      ("sant.louis", ["1"]),
    ]
    for (query, expected) in cases {
      collection.filter(by: SearchCriteria(text: query))
      #expect(collection.rows == expected, "\(query)")
      #expect(collection.includesNearSpellings, "\(query)")
    }
    // Each word has the budget of its own letters: "au" may not be misspelt.
    collection.filter(by: SearchCriteria(text: "port-ua-prince"))
    #expect(collection.rows.isEmpty)
    // Highlights cover each word's near spelling.
    collection.filter(by: SearchCriteria(text: "cluj-napcoa"))
    #expect(
      collection.highlightRanges(in: "Cluj-Napoca", field: "name", of: items[0]).map {
        String("Cluj-Napoca"[$0])
      } == ["Cluj", "Napoca"])
    // Written as it is stored, the term is found exactly, as one.
    collection.filter(by: SearchCriteria(text: "cluj-napoca"))
    #expect(collection.rows == ["0"] && !collection.includesNearSpellings)
  }

  @Test("a match found only inside a word does not hold near spellings back")
  func infixMatches() throws {
    // "exter" is inside "Dexter" (and nowhere at a word start): near spellings are looked for
    // too, and a near spelling of a word start comes before a match inside a word, finished or
    // still being typed; typed, the title that starts with a near spelling of it ranks as a
    // start with one edit.
    let schema = CatalogSchema(name: "t", fields: [.text("name")], titleField: "name")
    let items = ["Dexter", "Exeter"].enumerated().map {
      Item(id: ItemID(String($0)), fields: ["name": .text($1)])
    }
    var collection = try FilteredCollection(schema: schema, items: items)
    collection.filter(by: SearchCriteria(text: "exter "))
    #expect(collection.rows == ["1", "0"])
    #expect(collection.includesNearSpellings && collection.exactMatchCount == 1)
    collection.filter(by: SearchCriteria(text: "exter"))
    #expect(collection.rows == ["1", "0"])
    #expect(
      collection.rank(atRow: 0)
        == .typedStart(
          magnitude: 0, points: 10, edits: 1,
          agreement: MatchRank.agreement(titleHoldsTerms: true, equalFields: 1)))
    #expect(collection.includesNearSpellings && collection.exactMatchCount == 1)
    collection.typoTolerance = TypoTolerance(countsInfixMatches: true)
    #expect(collection.rows == ["0"])
  }

  @Test("the results say they are near spellings, and highlights cover the matched part")
  func indicatorAndHighlights() throws {
    var search = SearchController(collection: try Self.collection())
    search.send(.focus)
    search.send(.setText("amstred"))
    #expect(search.indicator.text == "No exact matches — showing 1 near spelling")
    #expect(search.indicator.includesNearSpellings)
    let item = try #require(search.collection.item(atRow: 0))
    let ranges = search.collection.highlightRanges(in: "Amsterdam", field: "name", of: item)
    #expect(ranges.map { String("Amsterdam"[$0]) } == ["Amsterd"])
    search.send(.setText("gingr"))
    let ginger = try #require(search.collection.item(atRow: 0))
    #expect(
      search.collection.highlightRanges(in: "Ginger Bay", field: "name", of: ginger).map {
        String("Ginger Bay"[$0])
      } == ["Ginger"])
    #expect(search.collection.rank(atRow: 0)?.typos == 1)
    #expect(
      ResultsIndicator(isFiltering: true, matchCount: 5, totalCount: 9, exactMatchCount: 2).text
        == "Items found: 5 (2 exact, 3 near spellings)")
  }

  @Test("no results under a scope: the nearest word of the whole catalog is offered")
  func spellingSuggestion() throws {
    var search = try Fixtures.activeController(.candies)
    search.send(.selectScope(1))  // Chocolate
    #expect(search.type("carmel").isEmpty)
    #expect(search.indicator.isNoResults)
    #expect(search.spellingSuggestion == "caramel")
    search.send(.selectScope(0))
    #expect(search.titles == ["Caramel"], "under All the near spelling shows itself")
    #expect(search.spellingSuggestion == nil)
    #expect(search.type("zzzzzz").isEmpty && search.spellingSuggestion == nil)
  }

  @Test("the edit-distance rows agree with the whole table, on random words in three scripts")
  func distanceAgreesWithTable() {
    var random = SplitMix64(seed: 4242)
    let alphabet: [Unicode.Scalar] = ["a", "b", "c", "é", "ж", "з", "λ"]
    for _ in 0..<3_000 {
      func word(_ range: ClosedRange<Int>) -> [Unicode.Scalar] {
        (0..<Int.random(in: range, using: &random)).map { _ in
          alphabet.randomElement(using: &random)!
        }
      }
      let term = word(1...9)
      let candidate = word(1...10)
      let budget = Int.random(in: 1...2, using: &random)
      var rows = NearSpelling.Rows(term: term.map(\.value), budget: budget)
      let bytes = Array(String(String.UnicodeScalarView(candidate)).utf8)
      let found = bytes.withUnsafeBufferPointer { NearSpelling.bestPrefix(of: $0, rows: &rows) }
      let expected = (1...candidate.count).map {
        ReferenceMatcher.distance(term, Array(candidate[0..<$0]))
      }.min()!
      #expect(found?.cost == (expected <= budget ? expected : nil), "\(term) \(candidate)")
    }
  }

  @Test("the word dictionary finds exactly the words within budget, walking them as a trie")
  func dictionaryAgreesWithBruteForce() {
    var random = SplitMix64(seed: 99)
    let letters: [Character] = ["a", "b", "c", "d", "é", "ж"]
    for round in 0..<60 {
      var column = FoldedColumn()
      var words: [String] = []
      for _ in 0..<Int.random(in: 1...80, using: &random) {
        let word = String(
          (0..<Int.random(in: 1...8, using: &random)).map { _ in
            letters.randomElement(using: &random)!
          })
        // The dictionary holds folded words ("é" is "e" there).
        words.append(TextFolding.fold(word))
        column.append([word + " " + word.uppercased()])
      }
      let dictionary = TypoDictionary(column: column)
      for _ in 0..<20 {
        let term = Array(
          TextFolding.fold(
            String(
              (0..<Int.random(in: 4...9, using: &random)).map { _ in
                letters.randomElement(using: &random)!
              })
          ).unicodeScalars)
        // Typed a letter at a time at the whole term's budget, as well as at its own: a walk
        // then goes over the runs of the term one letter shorter.
        let whole = TypoTolerance.budget(letters: term.count)
        for length in 1...term.count {
          let typed = Array(term[0..<length])
          for budget in Set([TypoTolerance.budget(letters: length), whole]) {
            var found = Set<String>()
            var previousEnd = 0
            dictionary.forEachNearWordRun(term: typed.map(\.value), budget: budget) { run in
              // Runs come in order and never overlap: the walk skips past each.
              #expect(run.lowerBound >= previousEnd && !run.isEmpty, "round \(round)")
              previousEnd = run.upperBound
              for w in run { found.insert(dictionary.word(w)) }
            }
            let expected = Set(
              words.filter { word in
                let scalars = Array(word.unicodeScalars)
                return (1...scalars.count).contains {
                  ReferenceMatcher.distance(typed, Array(scalars[0..<$0])) <= budget
                }
              })
            #expect(
              found == expected,
              "round \(round), term \(String(String.UnicodeScalarView(typed))), budget \(budget)")
          }
        }
      }
    }
  }

  @Test("near spellings agree with the reference on random catalogs, typed letter by letter")
  func nearSpellingsAgreeWithReference() throws {
    let seed: UInt64 = 31337
    print("typo property test seed \(seed)")
    var random = SplitMix64(seed: seed)
    let schema = CatalogSchema(
      name: "words", fields: [.text("title"), .text("tags"), .number("n")], titleField: "title",
      rankingField: RankingField("n"))
    let syllables = ["ka", "ro", "mi", "sa", "to", "ля", "né", "ri", "o", "s"]
    var nearSteps = 0
    func word() -> String {
      (0..<Int.random(in: 1...4, using: &random)).map { _ in
        syllables.randomElement(using: &random)!
      }.joined()
    }
    for round in 0..<120 {
      let items = (0..<Int.random(in: 1...40, using: &random)).map { id in
        Item(
          id: ItemID(String(id)),
          fields: [
            "title": .text(
              (0..<Int.random(in: 1...3, using: &random)).map { _ in word() }
                .joined(separator: " ")),
            "tags": .texts((0..<Int.random(in: 0...2, using: &random)).map { _ in word() }),
            // Popularity from nothing to millions: exact starts both weak and strong.
            "n": .number([0, 3, 5, 80, 20_000, 3_000_000].randomElement(using: &random)!),
          ])
      }
      let typos = [
        TypoTolerance.automatic, TypoTolerance(threshold: 3),
        TypoTolerance(threshold: 2, countsInfixMatches: true),
      ].randomElement(using: &random)!
      var collection = try FilteredCollection(schema: schema, items: items, typoTolerance: typos)
      // With the trigram index, a second word that may have typos narrows the candidates.
      if round % 2 == 1 { collection.index.prepareSubstringSearch() }
      var reference = ReferenceMatcher(schema: schema)
      reference.typos = typos
      // A word from the catalog with one or two random edits, typed letter by letter.
      var target = Array(word() + word())
      for _ in 0..<Int.random(in: 0...2, using: &random) where target.count > 1 {
        let at = Int.random(in: 0..<target.count, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: target.remove(at: at)
        case 1: target.insert(syllables.randomElement(using: &random)!.first!, at: at)
        default: target[at] = syllables.randomElement(using: &random)!.last!
        }
      }
      // Two words apart, or one term joined by punctuation (searched word by word for near
      // spellings).
      let joint = [" ", " ", "-", "'"].randomElement(using: &random)!
      let query = (Bool.random(using: &random) ? word() + joint : "") + String(target)
      var typed = ""
      for character in query {
        typed.append(character)
        let criteria = SearchCriteria(text: typed)
        collection.filter(by: criteria)
        if collection.includesNearSpellings && collection.exactMatchCount < collection.rows.count {
          nearSteps += 1
        }
        let expected = reference.rankedRows(items: items, criteria: criteria)
        let ranks = collection.rows.indices.map { row -> [Int] in
          let rank = collection.rank(atRow: row)!
          return [rank.typos, Int(rank.exactness.rawValue), rank.attribute, rank.position]
        }
        #expect(
          collection.rows == expected.map(\.id) && ranks == expected.map(\.rank),
          "seed \(seed) round \(round): \"\(typed)\" \(ranks) vs \(expected.map(\.rank))")
      }
    }
    // The cases must reach near spellings often, or they test little.
    #expect(nearSteps > 100, "\(nearSteps) steps showed near spellings")
  }
}
