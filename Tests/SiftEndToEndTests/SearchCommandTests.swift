import Foundation
import Testing

/// The seed scenarios through `sift search`, exactly as DESIGN §4 spells the command.
@Suite("sift search")
struct SearchCommandTests {
  @Test("CandySearch: caramel under All, nothing under Chocolate")
  func candySearch() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let all = try sift.run(["search", "--catalog", "candies", "--json", "caramel"])
    #expect(all.status == 0)
    #expect(all.titles == ["Caramel"])
    #expect(all.stderr == "1 item found\n")
    let object = try #require(all.objects.first)
    #expect(object["id"] as? String == "7")
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
}
