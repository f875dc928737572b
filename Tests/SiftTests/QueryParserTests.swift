import SiftTestSupport
import Testing

@testable import Sift

@Suite("Query language", .tags(.unit))
struct QueryParserTests {
  static let schema: CatalogSchema =
    (try? SeedCatalog.products.load().schema)
    ?? CatalogSchema(name: "missing", fields: [], titleField: "title")

  /// A compact spelling of a term, for expectations.
  static func spell(_ term: QueryTerm) -> String {
    let sign = term.isNegated ? "-" : ""
    switch term.condition {
    case .text(let text):
      var parts = ["\(text.field.map { "\($0):" } ?? "")\"\(text.needle)\""]
      if text.isPhrase { parts.append("phrase") }
      if let number = text.number { parts.append("#\(FieldValue.format(number))") }
      if text.matchesInitials { parts.append("initials") }
      return sign + parts.joined(separator: " ")
    case .number(let field, let predicate):
      return "\(sign)\(field)\(predicate)"
    case .category(let field, let value):
      return "\(sign)\(field)=\(value)"
    case .either(let alternatives):
      return "("
        + alternatives.map { $0.map(spell).joined(separator: " ") }.joined(separator: " | ") + ")"
    }
  }

  static func spell(_ text: String) -> [String] {
    Query(parsing: text, schema: schema).terms.map(spell)
  }

  @Test(
    "reads typed text",
    arguments: [
      ("", []),
      ("   ", []),
      ("rose", ["\"rose\""]),
      ("  Red   ROSE ", ["\"red\"", "\"rose\""]),
      ("2007", ["\"2007\" #2007"]),
      ("16.99", ["\"16.99\" #16.99"]),
      ("599.00", ["\"599.00\" #599"]),
      ("\"red rose\"", ["\"red rose\" phrase"]),
      ("\"red ro", ["\"red ro\" phrase"]),
      ("-rose", ["-\"rose\""]),
      ("-\"red rose\" tulip", ["-\"red rose\" phrase", "\"tulip\""]),
      ("title:rose", ["title:\"rose\""]),
      ("Title:\"red rose\"", ["title:\"red rose\" phrase"]),
      ("price:<10", ["price<10"]),
      ("price:<=10", ["price<=10"]),
      ("price:>10.5", ["price>10.5"]),
      ("price:>=10", ["price>=10"]),
      ("price:=25", ["price=25"]),
      ("price:25", ["price=25"]),
      ("year:2000..2010", ["year2000..2010"]),
      ("year:2000..", ["year>=2000"]),
      ("year:..2000", ["year<=2000"]),
      ("-year:2007", ["-year=2007"]),
      ("yearintroduced:2007", ["year=2007"]),
      ("type:Birthdays", ["type=birthdays"]),
      ("category:birthdays", ["type=birthdays"]),
      ("ㅅㅇ", ["\"\u{1109}\u{110B}\" initials"]),
      ("Đà", ["\"da\""]),
    ])
  func parses(_ text: String, _ expected: [String]) {
    #expect(Self.spell(text) == expected)
  }

  @Test(
    "unfinished or unknown filters are searched as text, with a diagnostic",
    arguments: [
      (
        "price:<", "price:<",
        "`price:` needs a value (e.g. `price:<10` or `price:2000..2010`); searched as text"
      ),
      (
        "price:", "price:",
        "`price:` needs a value (e.g. `price:<10` or `price:2000..2010`); searched as text"
      ),
      (
        "year:..", "year:..",
        "`year:` needs a value (e.g. `year:<10` or `year:2000..2010`); searched as text"
      ),
      ("prise:10", "prise:10", "unknown field `prise`, searched as text — did you mean `price`?"),
      ("colour:red", "colour:red", "unknown field `colour`, searched as text"),
      ("price:cheap", "price:cheap", "`price` takes a number, not `cheap`; searched as text"),
    ])
  func forgiving(_ text: String, _ searched: String, _ message: String) {
    let query = Query(parsing: text, schema: Self.schema)
    #expect(query.terms.map(Self.spell) == ["\"\(searched)\""])
    #expect(query.diagnostics.map(\.message) == [message])
  }

  @Test(
    "a word ending in a colon is punctuation (\"flag: Japan\"), unless it is a near miss of a field"
  )
  func colonEndingAWord() {
    let flag = Query(parsing: "flag: Japan", schema: Self.schema)
    #expect(flag.terms.map(Self.spell) == ["\"flag:\"", "\"japan\""])
    #expect(flag.diagnostics.isEmpty)
    let near = Query(parsing: "prise: 10", schema: Self.schema)
    #expect(
      near.diagnostics.map(\.message) == [
        "unknown field `prise`, searched as text — did you mean `price`?"
      ])
  }

  @Test("a field the catalog keeps but does not search is named as such")
  func storedField() {
    var schema = Self.schema
    schema.storedFields = [.text("timezone", searchable: false)]
    let query = Query(parsing: "timezone:utc", schema: schema)
    #expect(query.terms.map(Self.spell) == ["\"timezone:utc\""])
    #expect(
      query.diagnostics.map(\.message) == [
        "field `timezone` is kept but not searched (import with --text or --number timezone to search it); searched as text"
      ])
  }

  @Test func otherDiagnostics() {
    let lone = Query(parsing: "rose - tulip", schema: Self.schema)
    #expect(lone.terms.count == 2)
    #expect(lone.diagnostics.map(\.problem) == [.loneMinus])
    #expect(lone.diagnostics.first?.range == 5..<6)

    let unclosed = Query(parsing: "\"red ro", schema: Self.schema)
    #expect(unclosed.diagnostics.map(\.problem) == [.unclosedQuote])

    let marks = Query(parsing: "\u{301}\u{301} rose", schema: Self.schema)
    #expect(marks.terms.count == 1)
    #expect(marks.diagnostics.map(\.problem) == [.emptyTerm("\u{301}\u{301}")])

    let range = Query(parsing: "year:2010..2000", schema: Self.schema)
    #expect(range.diagnostics.map(\.problem) == [.emptyRange(field: "year")])
  }

  @Test("the strict door throws the first fault with its place and a suggestion")
  func strict() throws {
    #expect(throws: QueryError.self) { try Query(validating: "rose prise:10", schema: Self.schema) }
    do {
      _ = try Query(validating: "rose prise:10", schema: Self.schema)
    } catch {
      #expect(
        error.description
          == "query \"rose prise:10\", column 6: unknown field `prise`, searched as text — did you mean `price`?"
      )
      #expect(error.diagnostic.range == 5..<13)
    }
    let valid = try Query(validating: "red -tulip price:<30 year:2000..2010", schema: Self.schema)
    #expect(valid.terms.count == 4)
  }

  @Test("token identifiers read as one term")
  func tokens() {
    let category = Query.term(forToken: "category:Weddings", schema: Self.schema)
    #expect((try? category.get()).map(Self.spell) == "type=weddings")
    let year = Query.term(forToken: "year:>=2010", schema: Self.schema)
    #expect((try? year.get()).map(Self.spell) == "year>=2010")
    let bad = Query.term(forToken: "prise:<3", schema: Self.schema)
    #expect(throws: QueryDiagnostic.self) { try bad.get() }
    let two = Query.term(forToken: "a b", schema: Self.schema)
    #expect(throws: QueryDiagnostic.self) { try two.get() }
  }

  @Test("never traps, whatever is typed; ranges stay inside the text")
  func randomInput() {
    var random = SplitMix64(seed: 7)
    let pieces = [
      "a", "Đ", "-", "\"", ":", "..", "<", ">=", "=", "price", "year", "title", "type", " ", "  ",
      "10", "1.5", "ㅅ", "서", "👍🏽", "\u{301}", "\u{202E}", "\t", "\u{0}", "prise", "-", "#",
    ]
    for _ in 0..<5000 {
      let text = (0..<Int.random(in: 0...10, using: &random))
        .map { _ in pieces.randomElement(using: &random)! }.joined()
      let query = Query(parsing: text, schema: Self.schema)
      let count = text.count
      for term in query.terms {
        #expect(term.range.lowerBound >= 0 && term.range.upperBound <= count)
      }
      for diagnostic in query.diagnostics {
        #expect(diagnostic.range.upperBound <= count, "\(text.debugDescription)")
      }
    }
  }
}
