import Foundation
import SiftTestSupport
import Testing

/// `sift pins add|hide|list|remove` on a built-in catalog, and what `sift search` and
/// `sift export` then show.
@Suite("sift pins", .tags(.endToEnd))
struct PinsCommandTests {
  @Test("add, hide, list and remove; a search shows them, --explain says pinned, export keeps them")
  func addHideListRemove() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    func titles(_ query: String) throws -> [String] {
      try sift.run(["search", "--catalog", "products", "--json", query]).titles
    }
    #expect(try titles("rose") == ["Red Rose", "White Rose"])
    // Ginger (1) matches nothing of "rose"; it is pinned first, Orchid (3) second.
    let added = try sift.run(["pins", "add", "--catalog", "products", "Rose", "1"])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stdout == "pinned: Rose → 1 at 1\n")
    #expect(
      try sift.run(["pins", "add", "--catalog", "products", "rose ", "3", "--at", "2"]).stdout
        == "pinned: rose  → 3 at 2\n")
    #expect(
      try sift.run(["pins", "hide", "--catalog", "products", "ROSE", "15"]).stdout
        == "hidden: ROSE: 15 hidden\n")
    #expect(try titles("rose") == ["Ginger", "Orchid", "Red Rose"])
    #expect(try titles("RoSe") == ["Ginger", "Orchid", "Red Rose"])
    #expect(try titles("roses") != ["Ginger", "Orchid", "Red Rose"], "another query")
    let explained = try sift.run(["search", "--catalog", "products", "--explain", "rose"])
    #expect(explained.stdout.contains("↳ pinned · matches nothing · ahead of the next by pinned"))
    #expect(explained.stderr == "Items found: 3\n")
    let listed = try sift.run(["pins", "list", "--catalog", "products"])
    #expect(listed.stdout == "Rose → 1 at 1\nrose  → 3 at 2\nROSE: 15 hidden\n")
    let json = try sift.run(["pins", "list", "--catalog", "products", "--json"])
    #expect(json.stdout.hasPrefix(#"{"query":"Rose","id":"1","at":1}"#))
    // The export's settings hold them, and a catalog imported from it shows the same rows.
    let exported = try sift.run(["export", "--catalog", "products", "--output", "p.jsonl"])
    #expect(exported.status == 0, "\(exported.stderr)")
    #expect(try sift.run(["import", "p.jsonl", "--catalog", "copy.sqlite"]).status == 0)
    #expect(
      try sift.run(["search", "--catalog", "copy.sqlite", "--json", "rose"]).titles
        == ["Ginger", "Orchid", "Red Rose"])
    // Faults are named and change nothing.
    let unknown = try sift.run(["pins", "add", "--catalog", "products", "rose", "999"])
    #expect(unknown.status == 2)
    #expect(unknown.stderr == "sift: pins: no item \"999\" in catalog products\n")
    let missing = try sift.run(["pins", "remove", "--catalog", "products", "rose", "2"])
    #expect(missing.status == 2)
    #expect(
      missing.stderr == "sift: pins remove: catalog products has no pin of \"2\" for \"rose\"\n")
    #expect(
      try sift.run(["pins", "remove", "--catalog", "products", "rose", "15"]).stdout
        == "removed: 15 for rose\n")
    #expect(try titles("rose") == ["Ginger", "Orchid", "Red Rose", "White Rose"])
  }
}
