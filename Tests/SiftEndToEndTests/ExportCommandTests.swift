import Foundation
import SiftTestSupport
import Testing

@Suite("sift export", .tags(.endToEnd))
struct ExportCommandTests {
  /// The sample cities into `cities.sqlite`, as docs/command-line.md imports the cities.
  static func importSample(_ sift: SiftProcess, _ extra: [String] = []) throws {
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl").path
    let imported = try sift.run(
      ["import", sample, "--catalog", "cities.sqlite", "--rank-by", "population"]
        + ImportCommandTests.cityArguments + ["--location", "latitude,longitude"] + extra)
    #expect(imported.status == 0, "\(imported.stderr)")
  }

  @Test("a catalog exported, then imported with no option, answers as the original")
  func roundTrip() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try Self.importSample(sift, ["--label", "population=People"])
    _ = try sift.run(["synonyms", "add", "--catalog", "cities.sqlite", "saigon", "ho chi minh"])

    let exported = try sift.run(["export", "--catalog", "cities.sqlite"])
    #expect(exported.status == 0, "\(exported.stderr)")
    #expect(exported.stderr == "Exported 2,955 items from cities.sqlite\n")
    #expect(exported.lines.count == 2956)
    #expect(exported.lines[0].hasPrefix("{\"sift_settings\":{"))
    #expect(exported.lines[0].contains("\"id_field\":\"id\""))
    #expect(exported.lines[1].hasPrefix("{\"id\":12,"), "an id given as a number stays one")

    let file = try sift.write("export.jsonl", exported.stdout)
    let again = try sift.run(["import", file, "--catalog", "copy.sqlite"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("(2955 added, 0 updated)"))
    for query in [["đà", "nẵng"], ["saigon"], ["san"], ["mnchen"], ["population:>=5000000", "a"]] {
      let original = try sift.run(["search", "--catalog", "cities.sqlite", "--json"] + query)
      let copy = try sift.run(["search", "--catalog", "copy.sqlite", "--json"] + query)
      #expect(copy.stdout == original.stdout && !original.lines.isEmpty, "\(query)")
    }
    let near = ["search", "--near", "10.8,106.7", "--limit", "3", "--json", "ho"]
    #expect(
      try sift.run(near + ["--catalog", "copy.sqlite"]).stdout
        == (try sift.run(near + ["--catalog", "cities.sqlite"]).stdout))

    // --output: the file, and the same lines.
    let written = try sift.run([
      "export", "--catalog", "copy.sqlite", "--output", sift.path("again.jsonl"),
    ])
    #expect(written.status == 0, "\(written.stderr)")
    #expect(written.stdout.isEmpty)
    #expect(written.stderr.hasSuffix("to \(sift.path("again.jsonl"))\n"))
    let lines = try String(contentsOfFile: sift.path("again.jsonl"), encoding: .utf8)
      .split(separator: "\n").map(String.init)
    #expect(Array(lines.dropFirst()) == Array(exported.lines.dropFirst()))
  }

  @Test("as CSV, the settings beside; imported with --settings, the same searches")
  func csv() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try Self.importSample(sift)
    let exported = try sift.run([
      "export", "--catalog", "cities.sqlite", "--format", "csv", "--output", sift.path("c.csv"),
    ])
    #expect(exported.status == 0, "\(exported.stderr)")
    let settings = sift.path("c.settings.json")
    #expect(
      exported.stderr
        == "Exported 2,955 items from cities.sqlite to \(sift.path("c.csv"))\nSettings in \(settings): sift import \(sift.path("c.csv")) --catalog NEW --settings \(settings)\n"
    )
    let text = try String(contentsOfFile: sift.path("c.csv"), encoding: .utf8)
    #expect(
      text.hasPrefix(
        "id,name,alternates,population,latitude,longitude,country,timezone\n"))
    // A list of strings is a JSON array in its cell.
    #expect(text.contains("\n" + #"1835848,Seoul,"[""Hanyang"",""SEL"","#))
    let copy = try sift.run([
      "import", sift.path("c.csv"), "--catalog", "copy.sqlite", "--settings", settings,
    ])
    #expect(copy.status == 0, "\(copy.stderr)")
    for query in [["서울"], ["da", "nang"], ["san"], ["population:>=5000000", "a"]] {
      let original = try sift.run(["search", "--catalog", "cities.sqlite", "--json"] + query)
      let copied = try sift.run(["search", "--catalog", "copy.sqlite", "--json"] + query)
      #expect(copied.stdout == original.stdout && !original.lines.isEmpty, "\(query)")
    }
    // Without the settings, the same file is CSV as any other: lists stay their JSON text.
    let bare = try sift.run([
      "import", sift.path("c.csv"), "--catalog", "bare.sqlite", "--title", "name", "--id", "id",
    ])
    #expect(bare.status == 0, "\(bare.stderr)")
    let seoul = try sift.run(["search", "--catalog", "bare.sqlite", "--json", "seoul"]).objects
    #expect((seoul.first?["alternates"] as? String)?.hasPrefix("[\"") == true)
    let wrong = try sift.run([
      "export", "--catalog", "cities.sqlite", "--settings", sift.path("s.json"),
    ])
    #expect(wrong.status == 64 || wrong.status == 2)
    #expect(wrong.stderr.contains("--settings is for --format csv"), "\(wrong.stderr)")
  }

  @Test("an unknown catalog is a usage error, and no file is left")
  func unknownCatalog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["export", "--catalog", "nope", "--output", sift.path("out.jsonl")])
    #expect(run.status == 2)
    #expect(run.stderr.contains("nope"), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: sift.path("out.jsonl")))
    let help = try sift.run(["--help"])
    #expect(help.stdout.contains("export"))
  }
}
