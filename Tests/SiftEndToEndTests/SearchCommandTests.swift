import Foundation
import SiftTestSupport
import Testing

/// The seed scenarios through `sift search`, exactly as docs/command-line.md spells the command.
@Suite("sift search", .tags(.endToEnd))
struct SearchCommandTests {
  @Test("searches in four processes at once: none is refused, each finds the same")
  func concurrentProcesses() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try sift.importCitySample()
    // Each opening of a catalog that another process has open inspects the file as it stands:
    // a read that met the other's WAL work was taken for "not an SQLite database" (about one
    // in 400). Four at a time by xargs, so this process spawns one shell, not a thousand.
    let run = Host.shell(
      "cd '\(sift.folder.path)' && seq 1 1000 | xargs -P 4 -I{} sh -c "
        + "'SIFT_DATA_DIR=data \"\(SiftProcess.binary.path)\" search --catalog cities.sqlite --limit 1 par"
        + " >/dev/null 2>>failures.txt || echo refused {}'")
    let failures = (try? String(contentsOfFile: sift.path("failures.txt"), encoding: .utf8)) ?? ""
    let refusals = failures.split(separator: "\n").filter { $0 != "Items found: 38" }
    #expect(run.status == 0 && run.output.isEmpty, "\(run.output)")
    #expect(refusals.isEmpty, "\(refusals.prefix(3))")
    #expect(failures.split(separator: "\n").count == 1_000, "every search ran")
  }

  @Test("CandySearch: caramel under All, nothing under Chocolate")
  func candySearch() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let all = try sift.run(["search", "--catalog", "candies", "--json", "caramel"])
    #expect(all.status == 0)
    #expect(all.titles == ["Caramel"])
    #expect(all.stderr == "1 item found\n")
    let object = try #require(all.objects.first)
    #expect(idText(object["id"]) == "7")
    #expect(object["name"] as? String == "Caramel")
    #expect(object["category"] as? String == "Other")

    let chocolate = try sift.run([
      "search", "--catalog", "candies", "--scope", "Chocolate", "caramel",
    ])
    #expect(chocolate.status == 0)
    #expect(chocolate.stdout.isEmpty)
    #expect(chocolate.stderr == "No items match your query\n")

    let hard = try sift.run(["search", "--catalog", "candies", "--scope", "hard", "--json"])
    #expect(hard.titles == ["Lollipop", "Candy Cane", "Jaw Breaker", "Toffee Apple"])
    #expect(hard.stderr == "Items found: 4\n")

    let unknown = try sift.run(["search", "--catalog", "candies", "--scope", "Sour"])
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr
        == "sift: unknown scope \"Sour\" for catalog candies: its scopes are All, Chocolate, Hard, Other\n"
    )
  }

  @Test(
    "Apple sample: words, years and prices together",
    arguments: [
      (["rose", "2010"], ["Red Rose"]),
      (["2007"], ["Ginger", "Orchid", "Carnation White"]),
      (["carnation 2007"], ["Carnation White"]),
      (["16.99"], ["Orchid", "Geranium", "Daisy"]),
      (["--", "price:<20", "-orchid"], ["Geranium", "Daisy"]),
      (["year:2006..2007", "white"], ["Carnation White"]),
    ])
  func appleSample(_ query: [String], _ expected: [String]) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["search", "--catalog", "products", "--json"] + query)
    #expect(run.status == 0)
    #expect(run.titles == expected)
    let object = try #require(run.objects.first)
    #expect(object["year"] is NSNumber && object["price"] is NSNumber && object["type"] is String)
  }

  @Test(
    "either of two: `|` and `OR` inside the AND of the other terms, with --explain",
    arguments: [
      (["rose | tulip"], ["Tulip", "Red Rose", "White Rose"]),
      (["rose", "OR", "tulip"], ["Tulip", "Red Rose", "White Rose"]),
      (["ginger|orchid", "2007"], ["Ginger", "Orchid"]),
      (["white", "rose | carnation"], ["White Rose", "Carnation White"]),
      (["--", "-rose | price:>50"], ["Ginger", "Gladiolus", "Orchid"]),
    ])
  func eitherOfTwo(_ query: [String], _ expected: [String]) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let result = try sift.run(["search", "--catalog", "products", "--json"] + query)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.titles.prefix(expected.count) == expected[...], "\(result.titles)")
  }

  @Test("a dangling `|` is ignored with a note that names its column; --explain names the match")
  func danglingOr() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let result = try sift.run(["search", "--catalog", "products", "rose |"])
    #expect(result.status == 0)
    #expect(
      result.stderr
        == "sift: note: column 6: `|` needs a term on each side (`rose | tulip`); ignored\nItems found: 2\n"
    )
    let explained = try sift.run([
      "search", "--catalog", "products", "--explain", "--limit", "2", "rose | tulip",
    ])
    #expect(
      explained.stdout.contains("matched title: [Tulip]")
        && explained.stdout.contains("matched title: Red [Rose]"), "\(explained.stdout)")
  }

  @Test(
    "Arabic-Indic and Persian digits find the products of 2010, in plain terms and year: filters",
    arguments: [
      (["٢٠١٠"], ["Poinsettia Red", "Red Rose"]),
      (["۲۰۱۰"], ["Poinsettia Red", "Red Rose"]),
      (["rose", "٢٠١٠"], ["Red Rose"]),
      (["year:>=٢٠١٠"], ["Poinsettia Red", "Poinsettia Pink", "Red Rose", "White Rose"]),
      (["year:۲۰۰۶..۲۰۰۷", "white"], ["Carnation White"]),
    ])
  func nonLatinDigits(_ query: [String], _ expected: [String]) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["search", "--catalog", "products", "--json"] + query)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.titles == expected, "\(query)")
  }

  @Test("--sort lists by a field either way; a field it cannot sort by is exit 2 naming the flag")
  func sorted() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let cheapest = try sift.run([
      "search", "--catalog", "products", "--sort", "price", "--limit", "3",
    ])
    #expect(cheapest.status == 0)
    #expect(
      cheapest.lines == [
        "Orchid  —  Year introduced: 2007 · Intro price: 16.99 · Type: Birthdays",
        "Geranium  —  Year introduced: 2006 · Intro price: 16.99 · Type: Birthdays",
        "Daisy  —  Year introduced: 2006 · Intro price: 16.99 · Type: Birthdays",
      ])
    let newest = try sift.run([
      "search", "--catalog", "products", "--sort", "year:desc", "--json", "rose",
    ])
    #expect(newest.titles == ["White Rose", "Red Rose"])
    let unknown = try sift.run(["search", "--catalog", "products", "--sort", "type", "rose"])
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr
        == "sift: --sort: cannot sort by \"type\": catalog products sorts by title, year, price (FIELD, FIELD:asc or FIELD:desc)\n"
    )
    let malformed = try sift.run(["search", "--catalog", "products", "--sort", "price:up", "x"])
    #expect(malformed.status == 64)
    #expect(
      malformed.stderr.hasPrefix(
        "Error: --sort takes FIELD, FIELD:asc or FIELD:desc, not \"price:up\"\n"))
  }

  @Test("--facets gives each number field's range among the matches, as text and JSON")
  func numberRanges() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let birthdays = try sift.run([
      "search", "--catalog", "products", "--facets", "--limit", "0", "--token",
      "category:Birthdays",
    ])
    #expect(birthdays.lines.last == "Ranges: Year introduced 2001–2007 · Intro price 16.99–51.99")
    let json = try sift.run(["search", "--catalog", "products", "--facets", "--json", "rose"])
    let facets = try #require(json.objects.last?["facets"] as? [String: Any])
    let ranges = facets["ranges"] as? [[String: Any]] ?? []
    #expect(ranges.count == 2)
    #expect(ranges.first?["field"] as? String == "year")
    #expect(ranges.first?["min"] as? Int == 2010 && ranges.first?["max"] as? Int == 2012)
    #expect(ranges.last?["min"] as? Double == 24.99 && ranges.last?["max"] as? Double == 24.99)
    // Nothing matched: no range to show.
    let none = try sift.run(["search", "--catalog", "products", "--facets", "zzzz"])
    #expect(!none.stdout.contains("Ranges:"))
  }

  @Test("several --catalog: each one's results under a line with its name and count")
  func severalCatalogs() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let text = try sift.run(["search", "--catalog", "products", "--catalog", "candies", "rose"])
    #expect(text.status == 0)
    #expect(
      text.lines == [
        "products: Items found: 2",
        "Red Rose  —  Year introduced: 2010 · Intro price: 24.99 · Type: Funerals",
        "White Rose  —  Year introduced: 2012 · Intro price: 24.99 · Type: Funerals",
        "",
        "candies: No items match your query",
      ])
    let json = try sift.run([
      "search", "--catalog", "candies", "--catalog", "products", "--json", "--limit", "1", "c",
    ])
    #expect(json.objects.map { $0["catalog"] as? String } == ["candies", "products"])
    #expect(json.stderr.contains("candies: Items found: 10\nproducts: Items found:"))
    let twice = try sift.run(["search", "--catalog", "products", "--catalog", "products", "x"])
    #expect(twice.status == 64)
    #expect(twice.stderr.hasPrefix("Error: --catalog products is given twice"))
    let scoped = try sift.run([
      "search", "--catalog", "candies", "--catalog", "products", "--scope", "Chocolate",
    ])
    #expect(scoped.status == 2)
    #expect(scoped.stderr.contains("unknown scope \"Chocolate\" for catalog products"))
  }

  @Test("text output, --limit, and no default limit")
  func textAndLimit() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let everything = try sift.run(["search", "--catalog", "products"])
    #expect(everything.lines.count == 15)
    #expect(
      everything.lines.first
        == "Ginger  —  Year introduced: 2007 · Intro price: 49.98 · Type: Birthdays")
    #expect(everything.stderr == "15 items\n")
    let limited = try sift.run(["search", "--catalog", "products", "--limit", "2", "rose"])
    #expect(limited.lines.count == 2)
    #expect(limited.stderr == "Items found: 2\n", "the indicator counts every match")
  }

  @Test("a field without --label reads as words; a list shows the values that matched first")
  func labelsAndMatchedValues() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try sift.write(
      "countries.jsonl",
      """
      {"code":"DE","name":"Germany","other_names":["Almanca","Deutsch","Duits","German","Jerman","Nemecko","Allemagne"],"avgRating":4.5}
      {"code":"FR","name":"France","other_names":["Frankreich","Francia","Fransa"],"avgRating":4}

      """)
    let imported = try sift.run([
      "import", file, "--catalog", "countries.sqlite", "--title", "name", "--id", "code",
      "--text", "other_names", "--number", "avgRating",
    ])
    #expect(imported.status == 0, "\(imported.stderr)")
    let matched = try sift.run(["search", "--catalog", "countries.sqlite", "allemagne"])
    #expect(
      matched.lines == [
        "Germany  —  Other names: Allemagne, Almanca, Deutsch, Duits, German (+2 more) · Avg rating: 4.5"
      ])
    // Nothing matched in the list: its values as they came.
    let title = try sift.run(["search", "--catalog", "countries.sqlite", "germany"])
    #expect(
      title.lines == [
        "Germany  —  Other names: Almanca, Deutsch, Duits, German, Jerman (+2 more) · Avg rating: 4.5"
      ])
    // JSON gives the item as it came, whatever matched.
    let json = try sift.run(["search", "--catalog", "countries.sqlite", "--json", "allemagne"])
    let names = try #require(json.objects.first?["other_names"] as? [String])
    #expect(names.first == "Almanca")
  }

  @Test("--offset: the results after the first N, a page with --limit, as the API's offset")
  func offset() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let all = try sift.run(["search", "--catalog", "products", "--json"]).lines
    #expect(all.count == 15)
    for (offset, limit) in [(0, 3), (2, 3), (13, 5), (15, 2), (40, 1)] {
      let page = try sift.run([
        "search", "--catalog", "products", "--json", "--offset", "\(offset)", "--limit",
        "\(limit)",
      ])
      #expect(page.status == 0)
      #expect(page.lines == Array(all.dropFirst(offset).prefix(limit)), "\(offset) \(limit)")
      #expect(page.stderr == "15 items\n", "the indicator counts every match")
    }
    let rest = try sift.run(["search", "--catalog", "products", "--json", "--offset", "12"])
    #expect(rest.lines == Array(all.dropFirst(12)))
    let negative = try sift.run(["search", "--catalog", "products", "--offset=-1"])
    #expect(negative.status == 64)
    #expect(negative.stderr.contains("--offset must be 0 or more, not -1"), "\(negative.stderr)")
  }

  @Test("escape sequences and C0/C1 controls in data never reach stdout raw; 100k-char fields")
  func hostileData() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let long = String(repeating: "Đà Nẵng 서울 ", count: 9_000) + "needle"
    let lines = [
      #"{"id":1,"name":"Evil \u001b[2J\u001b]0;pwned\u0007 \u009b31m title\u0007","note":"\u001bc"}"#,
      #"{"id":2,"name":"\#(long)","note":"\#(long)"}"#,
    ]
    let file = try sift.write("evil.jsonl", lines.joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", file, "--catalog", "evil.sqlite", "--title", "name", "--text", "note", "--id", "id",
    ])
    try #require(imported.status == 0, "\(imported.stderr)")

    let text = try sift.run(["search", "--catalog", "evil.sqlite"])
    #expect(text.status == 0)
    let bytes = Array(text.stdoutData)
    let raw = bytes.indices.filter { index in
      let byte = bytes[index]
      // C0 except the newline that ends each item, DEL, and C1 (U+0080…U+009F as C2 80…C2 9F).
      return (byte < 0x20 && byte != 0x0A) || byte == 0x7F
        || (byte == 0xC2 && index + 1 < bytes.count && (0x80...0x9F).contains(bytes[index + 1]))
    }
    #expect(raw.isEmpty, "control bytes at \(raw.prefix(5))")
    #expect(text.stdout.contains("Evil ␛[2J␛]0;pwned␇ �31m title␇"))

    let found = try sift.run(["search", "--catalog", "evil.sqlite", "--json", "da nang needle"])
    #expect(found.titles.count == 1)
    #expect(found.titles.first?.count == long.count, "the whole field, not cut")
    // JSON output escapes controls instead (it is data, not text for a terminal).
    let json = try sift.run(["search", "--catalog", "evil.sqlite", "--json", "evil"])
    #expect(json.stdoutData.allSatisfy { $0 >= 0x20 || $0 == 0x0A })
    #expect(json.titles.first?.hasPrefix("Evil \u{1B}[2J") == true)
  }

  @Test("FoodTracker: Name and Rating scopes")
  func foodTracker() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    #expect(
      try sift.run(["search", "--catalog", "meals", "--json", "pasta"]).titles == [
        "Pasta with Meatballs"
      ])
    #expect(try sift.run(["search", "--catalog", "meals", "--json", "4"]).titles == [])
    #expect(
      try sift.run(["search", "--catalog", "meals", "--scope", "Rating", "--json", "4"]).titles
        == ["Caprese Salad"])
  }

  @Test("--facets: the scope bar's and each category's counts for the query, text and JSON")
  func facets() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let text = try sift.run(["search", "--catalog", "candies", "--facets", "c"])
    #expect(text.status == 0)
    #expect(
      text.lines.suffix(2) == [
        "Scopes: All 10 · Chocolate 5 · Hard 1 · Other 4",
        "Categories: Chocolate 5 · Other 4 · Hard 1",
      ])
    #expect(text.lines.count == 12, "ten results, then the two facet lines")
    #expect(text.stderr == "Items found: 10\n")

    let json = try sift.run(["search", "--catalog", "products", "--facets", "--json", "rose"])
    #expect(json.titles == ["Red Rose", "White Rose"])
    let last = try #require(json.objects.last)
    #expect(json.objects.count == 3, "one extra object after the results")
    let facets = try #require(last["facets"] as? [String: Any])
    let scopes = try #require(facets["scopes"] as? [[String: Any]])
    #expect(scopes.map { $0["title"] as? String } == ["All", "Birthdays", "Weddings", "Funerals"])
    #expect(scopes.map { ($0["count"] as? NSNumber)?.intValue } == [2, 0, 0, 2])
    let categories = try #require(facets["categories"] as? [[String: Any]])
    #expect(categories.map { $0["value"] as? String } == ["Funerals"])
    #expect(categories.map { ($0["count"] as? NSNumber)?.intValue } == [2])

    let none = try sift.run(["search", "--catalog", "products", "--facets", "zzzz"])
    #expect(
      none.lines == ["Scopes: All 0 · Birthdays 0 · Weddings 0 · Funerals 0", "Categories: none"])
    #expect(none.stderr == "No items match your query\n")
  }

  @Test("media: tokens by identifier, repeated")
  func tokens() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run([
      "search", "--catalog", "media", "--token", "category:Movies", "--token", "year:>=2010",
      "--json",
    ])
    #expect(run.titles == ["Parasite", "The Grand Budapest Hotel", "Arrival", "Moonlight", "Coco"])
    let bad = try sift.run(["search", "--catalog", "media", "--token", "colour:red"])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("invalid --token \"colour:red\""))
    // A category no item has is a mistake to hear about, not "No items match" and exit 0.
    for arguments in [
      ["--token", "category:Nope"], ["--token", "category:Nope", "--queries", "/dev/null"],
    ] {
      let unknown = try sift.run(["search", "--catalog", "media"] + arguments)
      #expect(unknown.status == 2)
      #expect(
        unknown.stderr
          == "sift: --token: unknown category \"Nope\" in token \"category:Nope\": no item of catalog media has it (e.g. category:Movies, category:Music, category:Documents)\n"
      )
    }
    // A category that exists but has no match for the text is an empty answer.
    let empty = try sift.run(["search", "--catalog", "media", "--token", "category:Movies", "zzzz"])
    #expect(empty.status == 0)
  }

  @Test("diagnostics are notes on stderr; the search still runs")
  func diagnostics() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["search", "--catalog", "products", "prise:10"])
    #expect(run.status == 0)
    #expect(
      run.stderr
        == "sift: note: column 1: unknown field `prise`, searched as text — did you mean `price`?\nNo items match your query\n"
    )
  }

  @Test("an emoji's official name pasted (\"flag: Japan\") and a name without its apostrophe")
  func pastedNames() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try sift.write(
      "emoji.jsonl",
      [
        #"{"emoji": "🇯🇵", "name": "Japan", "aliases": [":flag_for_Japan:", ":jp:"]}"#,
        #"{"emoji": "🗾", "name": "map of Japan", "aliases": [":japan:"]}"#,
        #"{"emoji": "🇨🇮", "name": "Côte d’Ivoire", "aliases": [":flag_for_Côte_d’Ivoire:"]}"#,
      ].joined(separator: "\n") + "\n")
    let imported = try sift.run([
      "import", file, "--catalog", "emoji.sqlite", "--title", "name", "--text", "aliases",
    ])
    #expect(imported.status == 0, "\(imported.stderr)")
    let flag = try sift.run(["search", "--catalog", "emoji.sqlite", "--json", "flag: Japan"])
    #expect(flag.titles == ["Japan"])
    #expect(flag.stderr == "1 item found\n", "no note: the colon is punctuation")
    for typed in ["cote divoire", "côte d'ivoire", "flag: cote divoire"] {
      let ivory = try sift.run(["search", "--catalog", "emoji.sqlite", "--json", typed])
      #expect(ivory.titles == ["Côte d’Ivoire"], "\(typed)")
    }
  }
}
