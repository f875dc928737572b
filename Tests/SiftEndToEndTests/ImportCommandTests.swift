import Foundation
import Testing

@Suite("sift import")
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
    #expect(run.stderr.hasSuffix("(2955 added, 0 updated)\n"))
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
    #expect(seoul["id"] as? String == "1835848")
    #expect((seoul["alternates"] as? [String])?.contains("서울") == true)
    #expect(seoul["population"] as? Int == 10_349_312)

    let again = try sift.run(["import", sample, "--catalog", "cities.sqlite"] + Self.cityArguments)
    #expect(again.stderr.hasSuffix("(0 added, 2955 updated)\n"))
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
        "type.jsonl:1: field \"population\" must be a number, not a string"
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
