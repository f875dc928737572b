import Foundation
import SiftTestSupport
import Testing

/// `sift synonyms add|list|remove` on a built-in catalog, and what `sift search` then finds.
@Suite("sift synonyms", .tags(.endToEnd))
struct SynonymsCommandTests {
  @Test("add, list and remove; searches find through them, ranked after what was typed")
  func addListRemove() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let added = try sift.run(["synonyms", "add", "--catalog", "products", "flower", "Rose"])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stdout == "added: flower = Rose\n")
    let oneWay = try sift.run([
      "synonyms", "add", "--catalog", "products", "bloom", "--to", "daisy",
    ])
    #expect(oneWay.stdout == "added: bloom → daisy\n")
    let again = try sift.run(["synonyms", "add", "--catalog", "products", "flower", "Rose"])
    #expect(again.stdout == "already there: flower = Rose\n")
    let listed = try sift.run(["synonyms", "list", "--catalog", "products"])
    #expect(listed.stdout == "flower = Rose\nbloom → daisy\n")
    let json = try sift.run(["synonyms", "list", "--catalog", "products", "--json"])
    #expect(
      json.stdout
        == "{\"expressions\":[\"flower\",\"Rose\"]}\n{\"expressions\":[\"bloom\"],\"to\":[\"daisy\"]}\n"
    )
    let titles = try sift.run(["search", "--catalog", "products", "--json", "flower"]).titles
    // The query is the synonym: the roses rank with its own matches, at word starts, before
    // "flower" inside Sunflower.
    #expect(titles == ["Red Rose", "White Rose", "Sunflower"])
    let found = try sift.run(["search", "--catalog", "products", "--explain", "flower"])
    #expect(found.stdout.contains("ahead of the next by word start"))
    #expect(found.stdout.contains("↳ via synonym flower → rose · typos 0"))
    #expect(found.stdout.contains("matched title: Red [Rose]"))
    // One way: daisy does not find bloom's items, and nothing is named bloom.
    #expect(
      try sift.run(["search", "--catalog", "products", "--json", "bloom"]).titles == ["Daisy"])
    #expect(
      try sift.run(["search", "--catalog", "products", "--json", "daisy"]).titles == ["Daisy"])
    let removed = try sift.run(["synonyms", "remove", "--catalog", "products", "ROSE"])
    #expect(removed.stdout == "removed: flower = Rose\n")
    #expect(
      try sift.run(["search", "--catalog", "products", "--json", "flower"]).titles == ["Sunflower"])
    // Saving synonyms leaves the saved index as it was: no rebuild on the next open.
    #expect(
      !(try sift.run(["search", "--catalog", "products", "rose"]).stderr.contains("rebuilt")))
  }

  @Test(
    "a group of one, a blank expression, a missing one: exit 2 with what to do, nothing saved",
    arguments: [
      (
        ["add", "--catalog", "products", "sofa"],
        "sift: synonyms add: a synonym group needs two expressions or more (`sofa couch`); for one that only finds another, use `--to`\n"
      ),
      (
        ["add", "--catalog", "products", "sofa", " "],
        "sift: synonyms add: the expression \" \" has no searchable characters\n"
      ),
      (
        ["remove", "--catalog", "products", "sofa"],
        "sift: synonyms remove: no synonym in catalog products names \"sofa\"\n"
      ),
      (
        ["list", "--catalog", "nope"],
        "sift: unknown catalog \"nope\": use a built-in catalog (products, candies, media, meals) or the path of a .sqlite file\n"
      ),
    ])
  func refused(arguments: [String], message: String) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["synonyms"] + arguments)
    #expect(run.status == 2)
    #expect(run.stderr == message)
    #expect(try sift.run(["synonyms", "list", "--catalog", "products"]).stdout == "")
  }
}
