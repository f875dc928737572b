import Foundation
import SiftTestSupport
import Testing

/// `sift import --vector FIELD` and `sift search --vector FILE | --like ID` through the built
/// binary: vectors checked at their FILE:LINE, kept as the numbers they were, found by meaning
/// with the filters first, and with a query one fused ranking.
@Suite("sift import and search by meaning", .tags(.endToEnd))
struct VectorCommandTests {
  static let records = """
    {"id":"1","title":"Red apple","kind":"Fruit","emb":[0.9,0.1,0.05]}
    {"id":"2","title":"Green pear","kind":"Fruit","emb":[0.7,0.3,-0.2]}
    {"id":"3","title":"Walnut","kind":"Nut","emb":[0.05,0.95,0.1]}
    {"id":"4","title":"Almond","kind":"Nut","emb":[0.1,0.9,0.3]}
    {"id":"5","title":"Plain cracker","kind":"Other"}
    {"id":"6","title":"Cherry","kind":"Fruit","emb":[0.85,0.05,0.1]}

    """

  func imported() throws -> SiftProcess {
    let sift = try SiftProcess()
    let file = try sift.write("food.jsonl", Self.records)
    let run = try sift.run([
      "import", file, "--catalog", "food.sqlite", "--title", "title", "--category", "kind",
      "--id", "id", "--vector", "emb",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      run.stderr.contains(
        "Vectors: emb, 3 numbers each, in 5 records (search by meaning with --vector FILE or --like ID)"
      ), "\(run.stderr)")
    #expect(!run.stderr.contains("Kept, not searched"), "\(run.stderr)")
    return sift
  }

  func ids(_ sift: SiftProcess, _ arguments: [String]) throws -> [String] {
    let run = try sift.run(["search", "--catalog", "food.sqlite", "--json"] + arguments)
    #expect(run.status == 0, "\(arguments): \(run.stderr)")
    return run.objects.compactMap { $0["id"] as? String }
  }

  @Test("like=ID finds the item first, then the nearest; a token filters before")
  func likeAndFilters() throws {
    let sift = try imported()
    defer { sift.cleanup() }
    #expect(try ids(sift, ["--like", "1"]) == ["1", "6", "2", "4", "3"])
    #expect(try ids(sift, ["--like", "1", "--neighbors", "2"]) == ["1", "6"])
    // The nearest nuts to an apple: the filter keeps two, both are found.
    #expect(
      try ids(sift, ["--like", "1", "--token", "category:Nut", "--neighbors", "2"]) == ["4", "3"])
    let vector = try sift.write("q.json", "[0.0, 1.0, 0.0]")
    #expect(try ids(sift, ["--vector", vector, "--limit", "2"]) == ["3", "4"])
    // Text fused with nearness: the name typed whole first, then by the formula.
    #expect(try ids(sift, ["--vector", vector, "--neighbors", "2", "cherry"]).first == "6")
    #expect(
      Set(try ids(sift, ["--vector", vector, "--neighbors", "2", "cherry"])) == ["6", "3", "4"])
  }

  @Test(
    "mistakes are named: a wrong length at FILE:LINE, an unknown item, a catalog without vectors")
  func mistakes() throws {
    let sift = try imported()
    defer { sift.cleanup() }
    let short = try sift.write("short.jsonl", "{\"id\":\"9\",\"title\":\"Fig\",\"emb\":[1,2]}\n")
    let run = try sift.run(["import", short, "--catalog", "food.sqlite"])
    #expect(run.status == 1)
    #expect(
      run.stderr.contains(
        "short.jsonl:1: field \"emb\" holds 2 numbers; this catalog's vectors hold 3"),
      "\(run.stderr)")
    let text = try sift.write(
      "text.jsonl", "{\"id\":\"9\",\"title\":\"Fig\",\"emb\":[1,\"a\",3]}\n")
    let wrong = try sift.run(["import", text, "--catalog", "food.sqlite"])
    #expect(
      wrong.stderr.contains(
        "text.jsonl:1: field \"emb\" must be an array of numbers (a vector); element 2 is a string"),
      "\(wrong.stderr)")
    let unknown = try sift.run(["search", "--catalog", "food.sqlite", "--like", "99"])
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr.contains("sift: --like: no item \"99\" in catalog food"), "\(unknown.stderr)")
    let none = try sift.run(["search", "--catalog", "food.sqlite", "--like", "5"])
    #expect(none.status == 2)
    #expect(none.stderr.contains("item \"5\" has no vector"), "\(none.stderr)")
    let length = try sift.write("long.json", "[1, 2, 3, 4]")
    let long = try sift.run(["search", "--catalog", "food.sqlite", "--vector", length])
    #expect(long.status == 2)
    #expect(
      long.stderr.contains("holds 4 numbers; this catalog's vectors hold 3"), "\(long.stderr)")
    let products = try sift.run(["search", "--catalog", "products", "--like", "1"])
    #expect(products.status == 2)
    #expect(products.stderr.contains("has no vectors to search by meaning"), "\(products.stderr)")
    // Nothing of the refused imports was kept.
    #expect(try ids(sift, ["--like", "1"]).count == 5)
  }

  @Test("vectors reach the index however it is built: a later import, a first record without one")
  func laterImports() throws {
    let sift = try imported()
    defer { sift.cleanup() }
    // Into a catalog that has items: the index is built from the table.
    let more = try sift.write(
      "more.jsonl", "{\"id\":\"7\",\"title\":\"Fig\",\"kind\":\"Fruit\",\"emb\":[0.9,0.1,0.04]}\n")
    #expect(try sift.run(["import", more, "--catalog", "food.sqlite"]).status == 0)
    #expect(try ids(sift, ["--like", "7", "--neighbors", "2"]) == ["7", "1"])
    // A new catalog whose first record has no vector.
    let late = try sift.write(
      "late.jsonl",
      "{\"id\":\"a\",\"title\":\"None\"}\n{\"id\":\"b\",\"title\":\"Some\",\"emb\":[1,0]}\n"
        + "{\"id\":\"c\",\"title\":\"Near\",\"emb\":[0.9,0.2]}\n")
    let run = try sift.run([
      "import", late, "--catalog", "late.sqlite", "--title", "title", "--id", "id", "--vector",
      "emb",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let found = try sift.run(["search", "--catalog", "late.sqlite", "--json", "--like", "b"])
    #expect(found.objects.compactMap { $0["id"] as? String } == ["b", "c"], "\(found.stderr)")
  }

  @Test("a new catalog's first vector sets the length: --skip-invalid passes over the others")
  func firstVectorSetsTheLength() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let file = try sift.write(
      "mixed.jsonl",
      "{\"id\":\"a\",\"title\":\"Two\",\"emb\":[1,0]}\n"
        + "{\"id\":\"b\",\"title\":\"Three\",\"emb\":[1,0,0]}\n"
        + "{\"id\":\"c\",\"title\":\"Also two\",\"emb\":[0.9,0.2]}\n")
    let flags = ["--title", "title", "--id", "id", "--vector", "emb"]
    let failed = try sift.run(["import", file, "--catalog", "strict.sqlite"] + flags)
    #expect(failed.status == 1)
    #expect(
      failed.stderr.contains(
        "mixed.jsonl:2: field \"emb\" holds 3 numbers; this catalog's vectors hold 2"),
      "\(failed.stderr)")
    let run = try sift.run(
      ["import", file, "--catalog", "lenient.sqlite", "--skip-invalid"] + flags)
    #expect(run.status == 0, "\(run.stderr)")
    let listed = try String(contentsOfFile: sift.path("lenient.rejected.txt"), encoding: .utf8)
    #expect(
      listed.hasSuffix(
        "mixed.jsonl:2: field \"emb\" holds 3 numbers; this catalog's vectors hold 2\n")
        && listed.split(separator: "\n").count == 1, "\(listed)")
    let found = try sift.run(["search", "--catalog", "lenient.sqlite", "--json", "--like", "a"])
    #expect(found.objects.compactMap { $0["id"] as? String } == ["a", "c"], "\(found.stderr)")
  }

  @Test("vectors export as the numbers they were and import back alike")
  func exportRoundTrip() throws {
    let sift = try imported()
    defer { sift.cleanup() }
    let exported = try sift.run(["export", "--catalog", "food.sqlite"])
    #expect(exported.status == 0, "\(exported.stderr)")
    #expect(exported.stdout.contains("\"emb\":[0.9,0.1,0.05]"), "\(exported.stdout)")
    let file = try sift.write("again.jsonl", exported.stdout)
    let again = try sift.run(["import", file, "--catalog", "again.sqlite"])
    #expect(again.status == 0, "\(again.stderr)")
    let before = try ids(sift, ["--like", "2"])
    let run = try sift.run(["search", "--catalog", "again.sqlite", "--json", "--like", "2"])
    #expect(run.objects.compactMap { $0["id"] as? String } == before)
  }
}
