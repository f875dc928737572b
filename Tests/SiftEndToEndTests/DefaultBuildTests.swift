import Foundation
import SiftTestSupport
import Testing

/// What `swift run sift` builds — the package's default traits, without `Server` — compiles,
/// and its `sift` says what it leaves out. The tests run with the Server trait, so nothing else
/// builds the command without it (a command calling into PostgreSQL outside `#if Server` once
/// broke `swift run sift` while every test passed).
@Suite("The default build", .tags(.endToEnd))
struct DefaultBuildTests {
  @Test(
    "swift build with the default traits builds sift, which refuses serve and PostgreSQL by name")
  func defaultTraits() throws {
    let root = ReadmePackageTests.root
    // Inside .build, apart from the tests' own build, so a second run builds only what changed.
    let scratch = root.appendingPathComponent(".build/default-traits")
    let build = try ReadmePackageTests.swift([
      "build", "--package-path", root.path, "--scratch-path", scratch.path, "--product", "sift",
    ])
    try #require(build.status == 0, "swift build (default traits):\n\(build.output)\(build.errors)")
    let path = try ReadmePackageTests.swift([
      "build", "--package-path", root.path, "--scratch-path", scratch.path, "--show-bin-path",
    ])
    let sift = URL(fileURLWithPath: path.output.trimmingCharacters(in: .whitespacesAndNewlines))
      .appendingPathComponent("sift")
    let howToBuild =
      "build sift with the Server trait: swift build --traits Server (or swift run --traits Server sift …)"
    let catalog = "postgresql://localhost/shop?catalog=cities"
    let queries = FileManager.default.temporaryDirectory.appendingPathComponent(
      "sift-default-\(UUID().uuidString).txt")
    try "rose\n".write(to: queries, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: queries) }
    let refusals: [([String], String)] = [
      (["serve"], "sift serve"),
      (["search", "--catalog", catalog, "rose"], "a catalog in PostgreSQL"),
      (["bench", "--catalog", catalog, "--queries", queries.path], "a catalog in PostgreSQL"),
    ]
    for (arguments, what) in refusals {
      let run = try ReadmePackageTests.run(sift, arguments)
      #expect(run.status == 2, "\(arguments): \(run.errors)")
      #expect(
        run.errors == "sift: \(what) is not in this build; \(howToBuild)\n", "\(arguments)")
    }
    // And it searches a built-in catalog.
    let search = try ReadmePackageTests.run(sift, ["search", "--catalog", "products", "rose"])
    #expect(search.status == 0, "\(search.errors)")
    #expect(search.output.contains("Rose"), "\(search.output)")
  }
}
