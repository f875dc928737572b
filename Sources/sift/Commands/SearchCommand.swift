import ArgumentParser
import Foundation
import Sift
import SiftStore

/// `sift search`: one search of any catalog, through the seam `sift serve` uses
/// (`SearchCatalog`); in memory the engine's SearchController answers it, as in the app.
struct SearchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Search a catalog and print the matching items, best first.",
    discussion: """
      The query uses the same syntax as the app: terms (all must match), "phrases", -negation, \
      field:value, price:<10, year:2000..2010 (put -- before a query that starts with -, so it \
      is not read as an option). The results indicator goes to stderr; every match \
      is printed unless --limit is given. Exit status 0 with or without matches, 2 for an unknown \
      catalog, scope, token or sort field.

      Examples:
        sift search --catalog products rose 2010
        sift search --catalog candies --scope Chocolate
        sift search --catalog products -- -rose price:<30
        sift search --catalog media --token category:Movies \\
          --token 'year:>=2010' --json
        sift search --catalog cities.sqlite --limit 5 da nang
        sift search --catalog cities.sqlite --offset 20 --limit 10 san
        sift search --catalog products --sort price:desc rose
        sift search --catalog media --crop 8 spirits
        sift search --catalog products --catalog media rose
        sift search --catalog cities.sqlite --near 39.8,-89.6 spring
        sift search --catalog cities.sqlite --near 48.86,2.35 --within 30 \\
          --sort distance
        sift search --catalog cities.sqlite --within-box -34.1,150.6,-33.6,151.3
        sift search --catalog cities.sqlite --distinct country --limit 5 san
      """
  )

  @Option(
    help:
      "A built-in catalog (products, candies, media, meals), a .sqlite file or postgresql://[USER@]HOST[:PORT]/DB?catalog=NAME. Repeat it to search several catalogs at once: each one's results come under a line naming it and its count."
  )
  var catalog: [String]

  @Option(help: "The scope bar button to select, by title (e.g. Chocolate).")
  var scope: String?

  @Option(
    name: .customLong("token"),
    help: "A token identifier, e.g. category:Chocolate or year:>=2010. Repeatable.")
  var tokens: [String] = []

  @Option(
    help: ArgumentHelp(
      "List the results by a number field or the title, smallest first (:asc) or largest (:desc), or by distance from --near; relevance breaks ties, items without a value come last.",
      valueName: "FIELD[:asc|:desc]|distance"))
  var sort: String?

  @OptionGroup var place: PlaceOptions

  @Option(
    help: ArgumentHelp(
      "Show only the best result of each value of FIELD (the first city of each country), where it stands among all the matches; the count is of groups, --facets still counts items. An item without a value is a group of its own.",
      valueName: "FIELD"))
  var distinct: String?

  @Option(
    help: ArgumentHelp(
      "Cut each text value but the title to N words around where the query matched it, with … for the words left out.",
      valueName: "N"))
  var crop: Int?

  @Option(
    name: .customLong("vector"),
    help: ArgumentHelp(
      "Find items by meaning: the nearest to the vector in FILE (a JSON array of numbers of the catalog's length; - for standard input). With a query, one ranking fuses the text's order and nearness.",
      valueName: "FILE"))
  var vectorFile: String?

  @Option(
    help: ArgumentHelp(
      "Find items by meaning: the nearest to the item with this id (itself first).",
      valueName: "ID"))
  var like: String?

  @Option(
    name: .customLong("semantic-ratio"),
    help: ArgumentHelp(
      "With a query and --vector or --like: how much nearness weighs against the text's order, from 0 (the text alone) to 1 (meaning alone).",
      valueName: "R"))
  var semanticRatio: Double = 0.5

  @Option(
    help: ArgumentHelp(
      "With --vector or --like: how many nearest items to find (with a query, they join its matches).",
      valueName: "N"))
  var neighbors: Int = SearchVector.defaultNeighbors

  @Flag(help: "Print one JSON object per matching item and line.")
  var json = false

  @Option(help: "Print at most this many items.")
  var limit: Int?

  @Option(
    help: "Skip the first N results: with --limit, one page of them (--offset 20 --limit 10).")
  var offset = 0

  @Option(
    help: ArgumentHelp(
      "Typo tolerance: auto looks for near spellings when nothing matches exactly; off never does.",
      valueName: "auto|off"))
  var typos: TypoMode = .auto

  @Flag(
    help:
      "After each result, why it is there: typos, exactness, the field and value of the best match, popularity, catalog order and the highlighted ranges (with --json: an \"explain\" object in each line)."
  )
  var explain = false

  @Flag(
    help:
      "After the results, how many items each scope-bar button and each category would show for this query, and each number field's smallest and largest value among the matches (with --json: one more line, a \"facets\" object)."
  )
  var facets = false

  @Option(
    name: .customLong("queries"),
    help: ArgumentHelp(
      "Run each line of FILE as a query, opening the catalog once (scripts and the relevance benchmark): one line of output per query, with --json an object with query, indicator and results. FILE may be a pipe, or - for standard input.",
      valueName: "FILE"))
  var queriesFile: String?

  @Argument(help: "The query.")
  var query: [String] = []

  func validate() throws {
    if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
    if offset < 0 { throw ValidationError("--offset must be 0 or more, not \(offset)") }
    if let crop, crop < 1 { throw ValidationError("--crop must be 1 or more words, not \(crop)") }
    if let sort, SearchSort(parsing: sort) == nil {
      throw ValidationError("--sort takes FIELD, FIELD:asc or FIELD:desc, not \"\(sort)\"")
    }
    if vectorFile != nil, like != nil {
      throw ValidationError("give either --vector FILE or --like ID, not both")
    }
    if vectorFile == nil, like == nil {
      if semanticRatio != 0.5 { throw ValidationError("--semantic-ratio needs --vector or --like") }
      if neighbors != SearchVector.defaultNeighbors {
        throw ValidationError("--neighbors needs --vector or --like")
      }
    }
    if queriesFile != nil, !query.isEmpty {
      throw ValidationError("give either a query or --queries FILE, not both")
    }
    if queriesFile != nil, catalog.count > 1 {
      throw ValidationError("--queries FILE searches one --catalog, not \(catalog.count)")
    }
    if let twice = catalog.first(where: { name in catalog.count { $0 == name } > 1 }) {
      throw ValidationError("--catalog \(twice) is given twice")
    }
  }

  func run() async throws {
    var opened: [OpenedCatalog] = []
    do {
      for argument in catalog {
        let one = try await OpenedCatalog.open(argument, for: .search(typos: typos.tolerance))
        opened.append(one)
        if let notice = one.notice { StandardStreams.error("sift: \(notice)") }
      }
      if let queriesFile {
        try await runQueries(from: queriesFile, on: opened[0].catalog)
      } else if opened.count == 1 {
        try await search(opened[0].catalog)
      } else {
        // Several catalogs: each one's results under a line that names it and its count —
        // once every one of them takes the scope, tokens and sort, so an error prints nothing.
        for one in opened {
          _ = try request(query.joined(separator: " "), schema: one.catalog.schema)
        }
        for (position, one) in opened.enumerated() {
          try await search(one.catalog, heading: position > 0 ? "\n" : "")
        }
      }
    } catch {
      for one in opened { await one.close() }
      throw error
    }
    for one in opened {
      await one.close()
      Self.keepUntilExit(one.catalog)
    }
  }

  /// The same reading of scope, tokens and text as `sift serve`'s search.
  private func request(_ text: String, schema: CatalogSchema) throws -> SearchRequest {
    let (near, box) = (try place.searchNear(), try place.searchBox())
    let vector = try searchVector()
    do throws(SearchRequestError) {
      return try SearchRequest(
        SearchRequestInput(
          text: text, scope: scope, tokens: tokens, sort: sort.flatMap(SearchSort.init(parsing:)),
          near: near, withinBox: box, distinct: distinct, vector: vector),
        schema: schema)
    } catch .noLocation {
      throw Failure.exit(
        "\(place.placeOption): \(SearchRequestError.noLocation(catalog: schema.name))", status: 2)

    } catch {
      throw Failure.usage(error)
    }
  }

  /// `--vector FILE` or `--like ID` as a search by meaning; nil without either.
  private func searchVector() throws -> SearchVector? {
    let source: SearchVector.Source
    if let like {
      source = .like(ItemID(like))
    } else if let vectorFile {
      let text = try TextFileReader.text(of: vectorFile, what: "the vector file")
      let floats: [Float]?
      switch try? JSONValue.parse(Data(text.utf8)) {
      case .array(let values)?:
        floats = try? VectorField.floats(in: FieldValue(json: .array(values))).get()
      default: floats = nil
      }
      guard let floats else {
        throw Failure.exit(
          "--vector: \(vectorFile) does not hold a JSON array of numbers (e.g. [0.12, -0.5, 0.33])",
          status: 2)
      }
      source = .vector(floats)
    } else {
      return nil
    }
    return SearchVector(source, semanticRatio: semanticRatio, neighbors: neighbors)
  }

  /// `--like ID` names an item of `catalog` that has a vector: a usage error otherwise.
  private func checkLike(in catalog: any SearchCatalog) async throws {
    guard let like else { return }
    let problem: String?
    do {
      problem = try await catalog.likeProblem(ItemID(like))
    } catch {
      throw Failure.catalog(error)
    }
    if let problem { throw Failure.exit("--like: \(problem)", status: 2) }
  }

  /// One search, its results read a page at a time: a query that matches everything holds one
  /// page of items. With a `heading` (one of several catalogs searched), its results come after
  /// `heading` and a line `NAME: INDICATOR` — on standard error with `--json`, whose output
  /// lines each carry `"catalog"` instead.
  private func search(_ catalog: any SearchCatalog, heading: String? = nil) async throws {
    let schema = catalog.schema
    let request = try request(query.joined(separator: " "), schema: schema)
    try await checkLike(in: catalog)
    let output = StandardStreams.Output()
    var written = false
    // Text lines show a list's matched values first, as the terminal app and the page do;
    // JSON lines give each item as it came.
    let first = try await pages(
      of: request, in: catalog, facets: facets, explain: explain, ordersListValues: !json
    ) { page in
      if let heading, !written, !json {
        output.write(heading + "\(catalog.name): \(page.indicator.text)\n")
      }
      written = true
      for result in page.results {
        write(
          Self.shown(result, matchedValuesFirst: !json), schema, explanation: result.explanation,
          distance: result.distanceKilometers, similarity: result.similarity,
          catalog: heading == nil ? nil : catalog.name,
          to: output)
      }
    }
    if let unknown = first.unknownCategory { throw Failure.usage(unknown) }
    if let facets = first.facets {
      for line in facetLines(facets, schema: schema) { output.write(line + "\n") }
    }
    output.flush()
    let prefix = heading == nil ? "" : "\(catalog.name): "
    for diagnostic in first.diagnostics {
      StandardStreams.error("sift: note: \(prefix)\(diagnostic)")
    }
    if heading == nil || json { StandardStreams.error(prefix + first.indicator.text) }
  }

  /// Asks `catalog` for the results of `request` a page at a time, from `--offset` up to
  /// `--limit` of them, and hands each page to `body`; returns the first page (the indicator,
  /// the facets).
  private func pages(
    of request: SearchRequest, in catalog: any SearchCatalog, facets: Bool = false,
    explain: Bool = false, ordersListValues: Bool = false, _ body: (SearchPage) -> Void
  ) async throws -> SearchPage {
    func page(_ offset: Int, _ limit: Int, facets: Bool) async throws -> SearchPage {
      do {
        return try await catalog.search(
          request,
          page: PageRequest(
            offset: offset, limit: limit, facets: facets, explain: explain,
            showsFields: crop != nil, crop: crop, ordersListValues: ordersListValues))
      } catch {
        throw Failure.catalog(error)
      }
    }
    let wanted = self.limit ?? .max
    let first = try await page(offset, min(Self.pageSize, wanted), facets: facets)
    body(first)
    let matched = first.indicator.matchCount
    let end = matched - offset > wanted ? offset + wanted : matched
    for start in stride(from: offset + Self.pageSize, to: end, by: Self.pageSize) {
      body(try await page(start, min(Self.pageSize, end - start), facets: false))
    }
    return first
  }

  /// The item as printed: with `--crop`, the snippets in place of the texts they cut; with
  /// `matchedValuesFirst`, each list's values in the order the page shows them — those the
  /// search matched first, then the rest as they came (`allemagne` shows "Allemagne" among a
  /// country's thirty names, not its first five).
  static func shown(_ result: PageResult, matchedValuesFirst: Bool = false) -> Item {
    var item = result.item
    for field in result.fields {
      switch field.value {
      case .text where result.croppedFields.contains(field.name):
        item[field.name] = field.value
      case .texts(let first)
      where matchedValuesFirst && !result.croppedFields.contains(field.name):
        // A page shows only some values of a list: the rest follow, each once. (A list cut to
        // snippets is shown as it came.)
        guard case .texts(let all) = result.item[field.name] else { continue }
        var rest = all
        for value in first {
          if let place = rest.firstIndex(of: value) { rest.remove(at: place) }
        }
        item[field.name] = .texts(first + rest)
      default: continue
      }
    }
    return item
  }

  /// The process ends once the answer is out: its memory goes with it, so the index is not
  /// freed piece by piece first (2 ms of a one-shot search of the cities).
  private static func keepUntilExit(_ catalog: any SearchCatalog) {
    final class Kept {
      let catalog: any SearchCatalog
      init(_ catalog: any SearchCatalog) { self.catalog = catalog }
    }
    _ = Unmanaged.passRetained(Kept(catalog))
  }

  /// One result: its JSON line (with `--explain` inside), or its text line and the
  /// explanation's line under it.
  func write(
    _ item: Item, _ schema: CatalogSchema, explanation: MatchExplanation?,
    distance: Double? = nil, similarity: Double? = nil, catalog: String? = nil,
    to output: StandardStreams.Output
  ) {
    if json {
      output.write(
        jsonLine(
          item, schema, explanation: explanation, distance: distance, similarity: similarity,
          catalog: catalog) + "\n")
    } else {
      output.write(textLine(item, schema, distance: distance, similarity: similarity) + "\n")
      if let explanation { output.write(Self.describe(explanation).inert + "\n") }
    }
  }

  /// `--queries FILE`: every line a query, with the scope and tokens given, one output line
  /// each.
  private func runQueries(from path: String, on catalog: any SearchCatalog) async throws {
    let schema = catalog.schema
    // A wrong scope or token, before the file.
    let tokensAlone = try request("", schema: schema)
    if !tokens.isEmpty {
      let page: SearchPage
      do {
        page = try await catalog.search(tokensAlone, page: PageRequest(limit: 0))
      } catch {
        throw Failure.catalog(error)
      }
      if let unknown = page.unknownCategory { throw Failure.usage(unknown) }
    }
    let text = try TextFileReader.text(of: path, what: "the queries file")
    let output = StandardStreams.Output()
    for line in text.split(whereSeparator: \.isNewline) {
      let query = String(line)
      var items: [Item] = []
      let first = try await pages(of: try request(query, schema: schema), in: catalog) {
        items += $0.results.map(\.item)
      }
      output.write(
        queryLine(query, first.indicator, items, titleField: schema.titleField) + "\n")
    }
    output.flush()
  }

  /// One line of `--queries`: the query, its results' titles and the indicator.
  func queryLine(
    _ query: String, _ indicator: ResultsIndicator, _ items: [Item], titleField: String
  ) -> String {
    guard json else {
      let titles = items.map { $0[titleField]?.displayText ?? "" }
      return "\(query) → \(titles.joined(separator: " · ")) (\(indicator.text))".inert
    }
    var object = JSONLine()
    object.add("query", .string(query))
    object.add("indicator", .string(indicator.text))
    object.add(
      "results",
      .array(
        items.map { item in
          var entry = JSONLine()
          entry.add("id", .string(item.id.rawValue))
          entry.add("title", .string(item[titleField]?.displayText ?? ""))
          return entry.value
        }))
    return object.line
  }

  /// `--facets`: the scope bar's counts and each category's, most items first; a catalog with
  /// neither scopes nor a category has no lines of text.
  func facetLines(_ facets: Facets, schema: CatalogSchema) -> [String] {
    if json {
      var line = JSONLine()
      line.add("facets", facets.json(schema: schema))
      return [line.line]
    }
    var lines: [String] = []
    if !schema.scopes.isEmpty {
      lines.append("Scopes: " + facets.summary(scopeTitles: schema.scopeTitles))
    }
    if schema.categoryField != nil {
      let shown = facets.namedCategories(schema: schema).map {
        "\($0) \(FieldValue.grouped(Double($1)))"
      }
      lines.append("Categories: " + (shown.isEmpty ? "none" : shown.joined(separator: " · ")))
    }
    // Each number field's smallest and largest value among the matches: a slider's ends.
    let ranges = schema.fields.compactMap { field in
      facets.range(of: field.name).map {
        let (low, high) = (FieldValue.number($0.lowerBound), FieldValue.number($0.upperBound))
        return
          "\(field.label) \(field.display(low, maximumValues: 1))–\(field.display(high, maximumValues: 1))"
      }
    }
    if !ranges.isEmpty { lines.append("Ranges: " + ranges.joined(separator: " · ")) }
    return lines.map(\.inert)
  }

  /// `{"id":…,"title":…,` then every field under its own name, in schema order (the stored
  /// ones last), and with `--explain` an `"explain"` object.
  func jsonLine(
    _ item: Item, _ schema: CatalogSchema, explanation: MatchExplanation?,
    distance: Double? = nil, similarity: Double? = nil, catalog: String? = nil
  ) -> String {
    var object = JSONLine()
    // One of several catalogs searched: which one, first.
    if let catalog { object.add("catalog", .string(catalog)) }
    object.add("id", schema.json(item.id))
    object.add("title", .string(item[schema.titleField]?.displayText ?? ""))
    for (fields, kept) in [(schema.fields, false), (schema.storedFields, true)] {
      for field in fields {
        if let value = item[field.name]?.resultJSON(kept: kept) { object.add(field.name, value) }
      }
    }
    if let distance { object.add("distance_km", .number(distance)) }
    if let similarity { object.add("similarity", .number(MatchExplanation.rounded(similarity))) }
    if let explanation { object.add("explain", Self.json(explanation)) }
    return object.line
  }

  /// A search by meaning's place as `--explain` says it: "similarity 0.912, nearest #2, text
  /// #5, fused 0.7".
  static func meaningText(_ meaning: MatchExplanation.Meaning) -> String {
    var said = [meaning.similarity.map { "similarity \(threeDecimals($0))" } ?? "no vector"]
    if meaning.nameEqualsQuery { said.append("name equals query") }
    if let rank = meaning.nearRank { said.append("nearest #\(rank)") }
    if let rank = meaning.textRank { said.append("text #\(rank)") }
    if let rank = meaning.textRankPast { said.append("text past #\(rank)") }
    if let score = meaning.fusedScore { said.append("fused \(MatchExplanation.rounded(score))") }
    return said.joined(separator: ", ")
  }

  /// A similarity as people read it: three decimals ("0.912", "-0.040").
  static func threeDecimals(_ value: Double) -> String {
    let thousandths = Int((value * 1000).rounded())
    let sign = thousandths < 0 ? "-" : ""
    let digits = String(abs(thousandths))
    let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    return sign + padded.dropLast(3) + "." + padded.suffix(3)
  }

  /// How many results are read from the catalog file at a time.
  static let pageSize = 1_000

  /// `--explain` as JSON: the rule values, the best match, popularity and the ranges.
  static func json(_ explanation: MatchExplanation) -> JSONValue {
    let highlights = explanation.highlights.map { highlight -> JSONValue in
      .object([
        ("field", .string(highlight.field)), ("value", .string(highlight.value)),
        (
          "ranges",
          .array(
            highlight.characterRanges.map {
              .array([.number(Double($0.lowerBound)), .number(Double($0.upperBound))])
            })
        ),
      ])
    }
    return .object(explanation.jsonMembers + [("highlights", .array(highlights))])
  }

  /// `--explain` as text, one indented line under the result.
  static func describe(_ explanation: MatchExplanation) -> String {
    if explanation.isByMeaningAlone, let meaning = explanation.meaning {
      // No word placed it: nearness and the fusion did.
      var parts = [meaningText(meaning)]
      if explanation.pinned { parts.insert("pinned", at: 0) }
      if let field = explanation.rankingField {
        parts.append("\(field) \(explanation.popularity.map(FieldValue.grouped) ?? "none")")
      }
      parts.append("catalog order \(explanation.catalogOrder)")
      if let rule = explanation.aheadOfNext { parts.append("ahead of the next by \(rule)") }
      return "    ↳ " + parts.joined(separator: " · ")
    }
    if explanation.pinned, explanation.field == nil, explanation.highlights.isEmpty {
      // Pinned without matching: no rule placed it.
      return "    ↳ pinned · matches nothing"
        + (explanation.aheadOfNext.map { " · ahead of the next by \($0)" } ?? "")
    }
    let rank = explanation.rank
    let exactness =
      rank.exactness.name
      + (explanation.exactField.map { field in
        " (\(field)" + (explanation.exactValue.map { " \"\($0)\"" } ?? "") + ")"
      } ?? "")
    var parts = [
      "typos \(rank.typos)",
      exactness
        + (explanation.typedWeight.map { weight in
          ", typed: weight \(weight.weight < 0 ? "−\(-weight.weight)" : "\(weight.weight)")"
            + " = magnitude \(weight.magnitude)"
            + " + name \(weight.points)"
            + (weight.edits > 0
              ? " − \(MatchExplanation.TypedWeight.penaltyPerEdit * weight.edits) for "
                + (weight.edits == 1 ? "1 edit" : "\(weight.edits) edits") : "")
            + (weight.weight < 0 ? ", counted as 0" : "")
        } ?? ""),
      explanation.field.map { field in
        "best in \(field)" + (explanation.value.map { " \"\($0)\"" } ?? "")
          + (explanation.readBy.map { " by \($0)" } ?? "")
          + (rank.wordPosition > 0 && explanation.readBy == nil
            ? " at word \(rank.wordPosition + 1)" : "")
      } ?? "no text term",
    ]
    if explanation.ranksByAgreement, rank.titleCovered == false {
      parts.append("title has words the query leaves out")
    }
    if explanation.ranksByAgreement, let title = rank.titleHoldsTerms,
      let equal = rank.equalFields
    {
      parts.append(
        (title ? "title holds the words" : "title lacks a word") + ", "
          + (equal == 0
            ? "no field equals"
            : equal == 1
              ? "1 field equals" : "\(equal == 3 ? "3+" : "\(equal)") fields equal"))
    }
    if let distance = explanation.distanceKilometers, explanation.sortField == nil {
      // Near a place without a sort: the rule right after typos, word starts and the title.
      parts.insert("distance \(MatchExplanation.kilometers(distance))", at: 2)
    }
    if let synonym = explanation.synonym {
      // Words written apart or together are what was typed, not a synonym of it.
      parts.insert(
        synonym.hasSuffix(MatchExplanation.spacesMoved) ? synonym : "via synonym \(synonym)", at: 0)
    }
    if explanation.pinned { parts.insert("pinned", at: 0) }
    if let meaning = explanation.meaning { parts.insert(meaningText(meaning), at: 0) }
    if let field = explanation.rankingField {
      parts.append("\(field) \(explanation.popularity.map(FieldValue.grouped) ?? "none")")
    }
    parts.append("catalog order \(explanation.catalogOrder)")
    if let field = explanation.sortField {
      parts.append("sorted by \(field) \(explanation.sortValue ?? "none")")
    }
    if let rule = explanation.aheadOfNext { parts.append("ahead of the next by \(rule)") }
    let marked = explanation.highlights.map { highlight in
      var text = ""
      var last = highlight.value.startIndex
      for range in highlight.ranges {
        text += highlight.value[last..<range.lowerBound] + "[" + highlight.value[range] + "]"
        last = range.upperBound
      }
      return "\(highlight.field): " + text + highlight.value[last...]
    }
    if !marked.isEmpty { parts.append("matched " + marked.joined(separator: ", ")) }
    return "    ↳ " + parts.joined(separator: " · ")
  }

  /// The title, then the other fields as "Label: value" (and how far it is, near a place),
  /// made inert for the terminal.
  func textLine(
    _ item: Item, _ schema: CatalogSchema, distance: Double? = nil, similarity: Double? = nil
  ) -> String {
    let title = item[schema.titleField]?.displayText ?? ""
    var details = schema.fields.filter { $0.name != schema.titleField }.compactMap { field in
      field.summary(item[field.name], maximumValues: 5).map { "\(field.label): \($0)" }
    }
    if let distance { details.append("\(MatchExplanation.kilometers(distance)) away") }
    if let similarity { details.append("similarity \(Self.threeDecimals(similarity))") }
    let line = details.isEmpty ? title : "\(title)  —  \(details.joined(separator: " · "))"
    return line.inert
  }

}

extension Failure {
  /// A scope or token the catalog does not have, as a usage error naming the option.
  static func usage(_ error: SearchRequestError) -> Error {
    switch error {
    case .invalidToken(let identifier, let catalog):
      exit(
        "invalid --token \"\(identifier)\": not one filter of catalog \(catalog) (e.g. category:VALUE, FIELD:<NUMBER)",
        status: 2)
    case .unknownCategory: exit("--token: \(error)", status: 2)
    case .unsortable, .distanceWithoutPlace: exit("--sort: \(error)", status: 2)
    case .noLocation: exit("--near: \(error)", status: 2)
    case .unknownScope: exit(error.description, status: 2)
    case .notDistinct: exit("--distinct: \(error)", status: 2)
    case .noVectors: exit(error.description, status: 2)
    case .invalidVector: exit("--vector: \(error)", status: 2)
    case .invalidSemanticRatio: exit("--semantic-ratio: \(error)", status: 2)
    case .invalidNeighbors: exit("--neighbors: \(error)", status: 2)
    case .sortByMeaning: exit("--sort: \(error)", status: 2)
    }
  }
}

/// `--typos`.
enum TypoMode: String, ExpressibleByArgument, CaseIterable {
  case auto, off

  var tolerance: TypoTolerance { self == .auto ? .automatic : .off }
}
