import Foundation
import SiftTestSupport
import Testing

@Suite("sift import", .tags(.endToEnd))
struct ImportCommandTests {
  static let cityArguments = [
    "--title", "name", "--text", "alternates", "--number", "population", "--category", "country",
    "--id", "id",
  ]

  @Test("real cities, then searches in Vietnamese, Korean and with numbers")
  func cities() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let run = try sift.run(["import", sample, "--catalog", "cities.sqlite"] + Self.cityArguments)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stderr.hasSuffix(
        "(2955 added, 0 updated)\nKept, not searched: latitude, longitude, timezone (search one with --text FIELD or --number FIELD)\n"
      ))
    #expect(!run.stderr.contains("\r"), "no progress bar when stderr is not a terminal")

    let search = { (query: [String]) throws -> SiftProcess.Run in
      try sift.run(["search", "--catalog", "cities.sqlite", "--json"] + query)
    }
    #expect(try search(["đà", "nẵng"]).titles == ["Da Nang"])
    #expect(try search(["da nang"]).titles == ["Da Nang"])
    #expect(try search(["서울"]).titles == ["Seoul"])
    #expect(try search(["ㅅㅇ"]).titles.contains("Seoul"))
    let big = try search(["population:>=10000000"])
    #expect(big.titles.contains("Seoul") && big.titles.contains("Moscow"))
    #expect(big.objects.allSatisfy { ($0["population"] as? Double ?? 0) >= 10_000_000 })
    let seoul = try #require(try search(["--token", "category:KR", "seoul"]).objects.first)
    #expect(idText(seoul["id"]) == "1835848")
    #expect((seoul["alternates"] as? [String])?.contains("서울") == true)
    #expect(seoul["population"] as? Int == 10_349_312)
    #expect(seoul["timezone"] as? String == "Asia/Seoul")
    #expect(seoul["latitude"] as? Double == 37.566)

    // The catalog remembers how it was imported: no flags the second time.
    let again = try sift.run(["import", sample, "--catalog", "cities.sqlite"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("(0 added, 2955 updated)\n"))
    #expect(try search(["서울"]).titles == ["Seoul"])
  }

  @Test("whole documents: a known id is replaced, --merge keeps the rest, labels, --delimiter")
  func wholeDocuments() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let first = try sift.write(
      "first.jsonl",
      #"{"code":"CI","name":"Côte d'Ivoire","capital":"Yamoussoukro","numeric":"384","official":{"en":"Republic of Côte d'Ivoire"},"landlocked":false}"#
        + "\n" + #"{"code":"JP","name":"Japan","capital":"Tokyo","numeric":"392"}"# + "\n")
    let created = try sift.run([
      "import", first, "--catalog", "countries.sqlite", "--title", "name", "--text", "capital",
      "--id", "code", "--label", "numeric=ISO number",
    ])
    #expect(created.status == 0, "\(created.stderr)")
    #expect(
      created.stderr.hasSuffix(
        "(2 added, 0 updated)\nKept, not searched: landlocked, numeric, official (search one with --text FIELD or --number FIELD)\n"
      ))
    let show = { (query: String) throws -> [String: Any] in
      try #require(
        try sift.run(["search", "--catalog", "countries.sqlite", "--json", query]).objects.first)
    }
    let ivory = try show("yamoussoukro")
    #expect(ivory["numeric"] as? String == "384")
    // Kept as they came: an object an object, a boolean a boolean.
    #expect(ivory["official"] as? [String: String] == ["en": "Republic of Côte d'Ivoire"])
    #expect(ivory["landlocked"] as? Bool == false)
    #expect(
      try sift.run(["search", "--catalog", "countries.sqlite", "--json", "yamoussoukro"])
        .stdout.contains(
          #""landlocked":false,"numeric":"384","official":{"en":"Republic of Côte d'Ivoire"}"#))
    // Kept fields are not searched: a term found only there finds nothing, with a note.
    let kept = try sift.run(["search", "--catalog", "countries.sqlite", "numeric:384"])
    #expect(
      kept.stderr
        == "sift: note: column 1: field `numeric` is kept but not searched (import with --text or --number numeric to search it); searched as text\nNo items match your query\n"
    )

    // The same id again, without flags: the record replaces the item, fields it lacks are gone.
    let replace = try sift.write(
      "replace.jsonl", #"{"code":"JP","name":"Japan","capital":"Tōkyō"}"# + "\n")
    let replaced = try sift.run(["import", replace, "--catalog", "countries.sqlite"])
    #expect(replaced.stderr.contains("(0 added, 1 updated)"), "\(replaced.stderr)")
    let japan = try show("japan")
    #expect(japan["capital"] as? String == "Tōkyō")
    #expect(japan["numeric"] == nil)

    // --merge sets the record's fields and keeps the rest.
    let merge = try sift.write("merge.jsonl", #"{"code":"CI","capital":"Abidjan"}"# + "\n")
    let merged = try sift.run(["import", merge, "--catalog", "countries.sqlite", "--merge"])
    #expect(merged.status == 0, "\(merged.stderr)")
    // A merged record without a title may only change an item the catalog has.
    let newcomer = try sift.write("newcomer.jsonl", #"{"code":"DE","capital":"Berlin"}"# + "\n")
    let refused = try sift.run(["import", newcomer, "--catalog", "countries.sqlite", "--merge"])
    #expect(refused.status == 1)
    #expect(
      refused.stderr.hasSuffix(
        "newcomer.jsonl:1: missing title field \"name\" (the catalog has no item with this id; --merge keeps only a known item's title)\n"
      ), "\(refused.stderr)")
    let abidjan = try show("abidjan")
    #expect(abidjan["name"] as? String == "Côte d'Ivoire")
    #expect(abidjan["numeric"] as? String == "384")

    // A label for a field the catalog lacks names it and the fields it has.
    let badLabel = try sift.run([
      "import", merge, "--catalog", "countries.sqlite", "--merge", "--label", "nope=X",
    ])
    #expect(badLabel.status == 1)
    #expect(badLabel.stderr.contains("--label nope=…: the catalog has no field \"nope\""))

    // A new catalog needs a title; a `;` file says how to read it, and --delimiter does.
    let semicolons = try sift.write("semi.csv", "code;name;area\nFR;France;551695\n")
    let noTitle = try sift.run(["import", semicolons, "--catalog", "semi.sqlite"])
    #expect(noTitle.status == 1)
    #expect(noTitle.stderr.contains("a new catalog needs --title FIELD"))
    let hint = try sift.run(["import", semicolons, "--catalog", "semi.sqlite", "--title", "name"])
    #expect(hint.stderr.contains("looks separated by \";\"; import it with --delimiter ';'"))
    let read = try sift.run([
      "import", semicolons, "--catalog", "semi.sqlite", "--title", "name", "--delimiter", ";",
    ])
    #expect(read.status == 0, "\(read.stderr)")
    let france = try #require(
      try sift.run(["search", "--catalog", "semi.sqlite", "--json", "france"]).objects.first)
    #expect(france["area"] as? Int == 551_695, "a column of numbers is kept as numbers")
    #expect(france["code"] as? String == "FR")
  }

  @Test("a malformed line, invalid UTF-8 or a wrong type fails the import and changes nothing")
  func failures() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let good = try sift.write(
      "good.jsonl", "{\"id\":1,\"name\":\"Hà Nội\",\"population\":8000000}\n")
    #expect(
      try sift.run(["import", good, "--catalog", "c.sqlite"] + Self.cityArguments).status == 0)
    let before = try sift.run(["search", "--catalog", "c.sqlite", "--json"]).stdout

    let cases: [(String, [UInt8], String)] = [
      (
        "malformed.jsonl", Array("{\"id\":2,\"name\":\"A\"}\n{\"id\":3,\"name\":\n".utf8),
        "malformed.jsonl:2: malformed JSON"
      ),
      (
        "utf8.jsonl",
        Array("{\"id\":2,\"name\":\"A\"}\n{\"id\":3,\"name\":\"".utf8) + [0xC3, 0x28]
          + Array("\"}\n".utf8), "utf8.jsonl:2: invalid UTF-8"
      ),
      (
        "type.jsonl", Array("{\"id\":2,\"name\":\"A\",\"population\":\"lots\"}\n".utf8),
        "type.jsonl:1: field \"population\" must be a number, not \"lots\""
      ),
      (
        "quote.csv", Array("id,name\n2,A\n3,\"B\n".utf8),
        "quote.csv:3: unclosed quote (it runs to the end of the file)"
      ),
    ]
    for (name, bytes, message) in cases {
      _ = try sift.write(name, bytes)
      let run = try sift.run(["import", name, "--catalog", "c.sqlite"] + Self.cityArguments)
      #expect(run.status == 1)
      #expect(run.stderr.hasPrefix("sift: \(message)"), "\(run.stderr)")
      #expect(run.stderr.filter { $0 == "\n" }.count == 1, "one line")
      #expect(try sift.run(["search", "--catalog", "c.sqlite", "--json"]).stdout == before)
    }
  }

  /// A random file of good records and records of every kind an import refuses, with the line
  /// and reason the import must give each, worked out here.
  static func fileWithGaps(seed: UInt64) -> (text: String, good: [String], refused: [String]) {
    var random = SplitMix64(seed: seed)
    var lines: [String] = []
    var good: [String] = []
    var refused: [String] = []
    var firstLineOfID: [Int: Int] = [:]
    for _ in 0..<Int.random(in: 40...90, using: &random) {
      let line = lines.count + 1
      let id = Int.random(in: 1...60, using: &random)
      let kind = Int.random(in: 0..<10, using: &random)
      let reason: String?
      switch kind {
      case 0:
        lines.append(#"{"id":\#(id),"name":null}"#)
        reason = #"missing title field "name""#
      case 1:
        lines.append(#"{"id":\#(id),"name":"Town \#(id)""#)
        reason = "malformed JSON (at byte \(lines[line - 1].utf8.count): the object is not closed)"
      case 2:
        lines.append(#"{"id":\#(id),"name":"Town \#(id)","population":[1]}"#)
        reason = #"field "population" must be a number, not an array"#
      case 3:
        lines.append(#"{"id":\#(id),"name":"Town \#(id)","population":"many"}"#)
        reason = #"field "population" must be a number, not "many""#
      default:
        // A number given as text is read as one, and counted.
        let population = kind == 4 ? #""\#(id * 100)""# : "\(id * 100)"
        lines.append(#"{"id":\#(id),"name":"Town \#(id)","population":\#(population)}"#)
        reason = nil
      }
      if let reason {
        refused.append("towns.jsonl:\(line): \(reason)")
      } else if let first = firstLineOfID[id] {
        refused.append("towns.jsonl:\(line): id \"\(id)\" already appears on line \(first)")
      } else {
        firstLineOfID[id] = line
        good.append("\(id)")
      }
    }
    return (lines.joined(separator: "\n") + "\n", good, refused)
  }

  @Test("--skip-invalid imports the records that fit and lists each other one with its reason")
  func skipInvalid() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let (text, good, refused) = Self.fileWithGaps(seed: 67)
    _ = try sift.write("towns.jsonl", text)
    try #require(refused.count > RejectedLines.shown, "the seed makes enough refusals")

    // All or nothing stays the default: the first refusal fails the import, nothing is made.
    let whole = try sift.run(
      ["import", "towns.jsonl", "--catalog", "t.sqlite"] + Self.cityArguments)
    #expect(whole.status == 1)
    #expect(whole.stderr == "sift: \(refused[0])\n")
    #expect(!FileManager.default.fileExists(atPath: sift.path("t.sqlite")))

    let run = try sift.run(
      ["import", "towns.jsonl", "--catalog", "t.sqlite", "--skip-invalid"] + Self.cityArguments)
    #expect(run.status == 0, "\(run.stderr)")
    let listed = try String(contentsOfFile: sift.path("t.rejected.txt"), encoding: .utf8)
    #expect(listed == refused.map { $0 + "\n" }.joined(), "every refusal, in file order")
    let stderr = run.stderr.split(separator: "\n").map(String.init)
    #expect(
      Array(stderr.prefix(RejectedLines.shown))
        == refused.prefix(RejectedLines.shown).map {
          "skipped " + $0
        })
    #expect(stderr[RejectedLines.shown] == "… and \(refused.count - RejectedLines.shown) more")
    #expect(
      stderr.contains("Each skipped record's line and reason: \(sift.path("t.rejected.txt"))"))
    #expect(stderr.contains("Skipped \(refused.count) records that did not fit"))
    #expect(
      stderr.contains { $0.hasPrefix("Read as numbers: population given as text in ") },
      "numbers given as text are counted")
    let ids = try sift.run(["search", "--catalog", "t.sqlite", "--json"]).objects.compactMap {
      idText($0["id"])
    }
    #expect(ids == good)

    // CSV: a record of the wrong width and a value of the wrong type, to a file named.
    _ = try sift.write("pets.csv", "name,age\nRex,3\nTom\nBo,x\n,2\nIvy,5\n")
    let pets = try sift.run([
      "import", "pets.csv", "--catalog", "p.sqlite", "--title", "name", "--number", "age",
      "--skip-invalid", "--rejects", "pets-refused.txt",
    ])
    #expect(pets.status == 0, "\(pets.stderr)")
    #expect(
      try String(contentsOfFile: sift.path("pets-refused.txt"), encoding: .utf8)
        == "pets.csv:3: 1 field, but the header has 2\npets.csv:4: field \"age\" must be a number, not \"x\"\npets.csv:5: title field \"name\" is empty\n"
    )
    #expect(try sift.run(["search", "--catalog", "p.sqlite", "--json"]).titles == ["Rex", "Ivy"])
    let lone = try sift.run(["import", "pets.csv", "--catalog", "q.sqlite", "--rejects", "x.txt"])
    #expect(lone.status == 64)
    #expect(lone.stderr.contains("--rejects lists what --skip-invalid passes over: give both"))
  }

  /// How many refused records `--skip-invalid` shows on standard error.
  enum RejectedLines { static let shown = 10 }

  @Test("a file that is not a catalog is refused and left as it was")
  func notACatalog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let notes = try sift.write("notes.sqlite", "my notes, not a database\n")
    let good = try sift.write("good.jsonl", "{\"id\":1,\"name\":\"A\"}\n")
    let run = try sift.run(["import", good, "--catalog", notes, "--title", "name", "--id", "id"])
    #expect(run.status == 1)
    #expect(run.stderr.contains("not a Sift catalog (not an SQLite database); left untouched"))
    #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes, not a database\n")
    let search = try sift.run(["search", "--catalog", notes, "x"])
    #expect(search.status == 2)
  }
}

/// docs/command-line.md's "Importing your own data", run as written on the data its script makes from
/// PyPI's pycountry.
@Suite(
  "docs: importing the countries", .tags(.endToEnd, .network),
  .needsCorpus("sift-countries-corpus", "countries.jsonl"))
struct ReadmeCountriesTests {
  static func countries() throws -> URL {
    try SiftProcess.scriptCorpus(
      "make-countries", folder: "sift-countries-corpus", file: "countries.jsonl")
  }

  @Test("import, search a kept field's value, import again naming it, merge")
  func readmeSteps() throws {
    let countries = try Self.countries().path
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let first = try sift.run([
      "import", countries, "--catalog", "countries.sqlite", "--title", "name", "--text", "names",
      "--id", "code",
    ])
    #expect(
      first.stderr.hasSuffix(
        "(249 added, 0 updated)\nKept, not searched: alpha_3, flag, numeric, official_name, subdivisions (search one with --text FIELD or --number FIELD)\n"
      ), "\(first.stderr)")
    let germany = try #require(
      try sift.run(["search", "--catalog", "countries.sqlite", "--json", "독일"]).objects.first)
    #expect(idText(germany["id"]) == "DE")
    #expect(germany["official_name"] as? String == "Federal Republic of Germany")
    #expect(germany["flag"] as? String == "🇩🇪")
    #expect(germany["subdivisions"] as? Int == 16)
    for name in ["ドイツ", "ألمانيا", "Германия", "deutschland"] {
      #expect(
        try sift.run(["search", "--catalog", "countries.sqlite", "--json", name]).titles.first
          == "Germany", "\(name)")
    }

    let again = try sift.run([
      "import", countries, "--catalog", "countries.sqlite", "--number", "subdivisions", "--text",
      "official_name", "--label", "official_name=Official name", "--label", "names=Other names",
    ])
    #expect(again.status == 0, "\(again.stderr)")
    let federal = try sift.run([
      "search", "--catalog", "countries.sqlite", "federal subdivisions:10..20",
    ])
    #expect(
      federal.stdout.split(separator: "\n").map { $0.split(separator: " ").first ?? "" } == [
        "Ethiopia", "Germany", "Somalia",
      ])
    #expect(
      federal.stdout.contains(
        "Germany  —  Other names: ألمانيا, 德国, Allemagne, Deutschland, जर्मनी (+5 more) · Official name: Federal Republic of Germany · Subdivisions: 16"
      ))

    let capitals = try sift.write("capitals.jsonl", #"{"code": "DE", "capital": "Berlin"}"# + "\n")
    let replaced = try sift.run(["import", capitals, "--catalog", "countries.sqlite"])
    #expect(replaced.status == 1)
    #expect(replaced.stderr.hasSuffix("capitals.jsonl:1: missing title field \"name\"\n"))
    let merged = try sift.run(["import", capitals, "--catalog", "countries.sqlite", "--merge"])
    #expect(merged.status == 0, "\(merged.stderr)")
    let berlin = try #require(
      try sift.run(["search", "--catalog", "countries.sqlite", "--json", "deutschland"]).objects
        .first)
    #expect(berlin["capital"] as? String == "Berlin")
    #expect(berlin["official_name"] as? String == "Federal Republic of Germany")

    // Exported, then imported with no option: the same catalog (the export example of docs/command-line.md).
    let exported = try sift.run(["export", "--catalog", "countries.sqlite"])
    #expect(exported.stderr == "Exported 249 items from countries.sqlite\n")
    #expect(
      exported.lines.first?.hasPrefix(
        #"{"sift_settings":{"id_field":"code","schema":{"categories":[],"extraTokens":[],"fields":[{"#
      )
        == true)
    #expect(
      exported.lines.first { $0.hasPrefix(#"{"code":"DE","name":"Germany","names":["#) }?
        .hasSuffix(
          #""official_name":"Federal Republic of Germany","subdivisions":16,"alpha_3":"DEU","flag":"🇩🇪","numeric":"276","capital":"Berlin"}"#
        ) == true)
    let file = try sift.write("countries-export.jsonl", exported.stdout)
    let copied = try sift.run(["import", file, "--catalog", "countries-copy.sqlite"])
    #expect(
      copied.stderr.hasSuffix(
        "countries-copy.sqlite (249 added, 0 updated)\nKept, not searched: alpha_3, flag, numeric, capital (search one with --text FIELD or --number FIELD)\n"
      ), "\(copied.stderr)")
    for query in ["federal subdivisions:10..20", "deutschland", "독일"] {
      let search = { (catalog: String) in
        try sift.run(["search", "--catalog", catalog, "--json", query]).stdout
      }
      #expect(try search("countries-copy.sqlite") == search("countries.sqlite"), "\(query)")
    }
  }
  @Test(
    "what a file lacks is said once, with a count and its first line; kept fields are this file's",
    .needs("sqlite3"))
  func silentImportsSpeak() throws {
    try CrashTests.ensureSQLite()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let lines = [
      #"{"id": "1", "name": "Heathrow", "city": "London", "lat": 51.47, "lon": -0.4543, "tz": "Europe/London"}"#,
      #"{"id": "2", "name": "Gatwick", "city": "", "tz": "", "lat": 51.148}"#,
      #"{"id": "3", "name": "Zurich", "city": "Zurich", "lat": null, "lon": 8.549}"#,
      #"{"id": "4", "name": "Kloten", "city": "Zurich", "lat": 47.46, "lon": 8.55}"#,
    ]
    let file = try sift.write("airports.jsonl", lines.joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", file, "--catalog", "ap.sqlite", "--title", "name", "--text", "city", "--id", "id",
      "--location", "lat,lon", "--name", "Big Airports",
    ])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(
      CrashTests.sqlite(
        sift.path("ap.sqlite"), "select json_extract(schema, '$.title') from catalog")
        == "Big Airports")
    #expect(
      imported.stderr.hasSuffix(
        """
        (4 added, 0 updated)
        Kept, not searched: tz (search one with --text FIELD or --number FIELD)
        Without a place: 2 items (a coordinate missing or null; the first at \(file):2): last near a place, and never within a radius

        """), "\(imported.stderr)")
    let near = try sift.run([
      "search", "--catalog", "ap.sqlite", "--near", "51.5,-0.1", "--within", "5000",
    ])
    #expect(near.stderr == "Items found: 2\n", "\(near.stderr)")

    // An empty searched value is no value, left out of --json; a kept one comes back as it came.
    let gatwick = try #require(
      try sift.run(["search", "--catalog", "ap.sqlite", "--json", "gatwick"]).objects.first)
    #expect(gatwick["city"] == nil && gatwick["tz"] as? String == "", "\(gatwick)")
    #expect(gatwick["title"] as? String == "Gatwick")

    // Again, from a file without the searched city, the coordinates or tz: said, not silent;
    // tz, which this file does not hold, is not listed as kept.
    let bare = try sift.write(
      "bare.jsonl", #"{"id": "5", "name": "Bare Field", "lat": 1, "lon": 2}"# + "\n")
    let again = try sift.run(["import", bare, "--catalog", "ap.sqlite"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(
      again.stderr.hasSuffix("(1 added, 0 updated)\nSearched but in no record of \(bare): city\n"),
      "\(again.stderr)")
    // A merge names only what it changes: nothing is missing.
    let merge = try sift.write("merge.jsonl", #"{"id": "2", "lon": -0.19}"# + "\n")
    let merged = try sift.run(["import", merge, "--catalog", "ap.sqlite", "--merge"])
    #expect(merged.stderr.hasSuffix("(0 added, 1 updated)\n"), "\(merged.stderr)")
  }
}
