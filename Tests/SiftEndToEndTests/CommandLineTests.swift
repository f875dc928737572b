import Foundation
import SiftTestSupport
import Testing

@Suite("sift, its help and its errors", .tags(.endToEnd))
struct CommandLineTests {
  @Test func binaryExists() {
    #expect(
      FileManager.default.isExecutableFile(atPath: SiftProcess.binary.path),
      "\(SiftProcess.binary.path)")
  }

  @Test("without a terminal the app says what to use instead")
  func noTerminal() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run([])
    #expect(run.status == 2)
    #expect(
      run.stderr
        == "sift: the terminal app needs a terminal on stdin and stdout; for scripts use `sift search` or `sift filter`\n"
    )
  }

  @Test("an unknown catalog is a usage error that names it")
  func unknownCatalog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    for arguments in [["--catalog", "sweets"], ["search", "--catalog", "sweets", "x"]] {
      let run = try sift.run(arguments)
      #expect(run.status == 2)
      #expect(
        run.stderr
          == "sift: unknown catalog \"sweets\": use a built-in catalog (products, candies, media, meals) or the path of a .sqlite file\n"
      )
    }
    let missing = try sift.run(["search", "--catalog", "nowhere.sqlite"])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("unknown catalog \"nowhere.sqlite\": no file at"))
  }

  @Test("a served catalog's address is read once: copied by sift sync, refused elsewhere by name")
  func servedCatalogArgument() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let served = "http://127.0.0.1:9/catalogs/shop"
    let refusals: [([String], String)] = [
      (
        ["search", "--catalog", served, "rose"],
        "\(served) is a catalog on a Sift server: copy it with sift sync \(served) --catalog FILE.sqlite, then search the copy"
      ),
      (
        ["sync", served, "--catalog", "products"],
        "--catalog products is a built-in catalog: sync into a .sqlite file of its own"
      ),
      (
        ["sync", "shop", "--catalog", sift.path("copy.sqlite")],
        "shop: expected http(s)://HOST[:PORT]/catalogs/NAME, the address of a catalog on a Sift server"
      ),
    ]
    for (arguments, message) in refusals {
      let run = try sift.run(arguments)
      #expect(run.status == 2, "\(arguments)")
      #expect(run.stderr == "sift: \(message)\n", "\(arguments)")
    }
  }

  @Test("a folder given as the catalog is a usage error that says so")
  func folderAsCatalog() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let folder = sift.path("shelf")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for arguments in [
      ["search", "--catalog", folder, "rose"], ["search", "--catalog", folder + "/"],
    ] {
      let run = try sift.run(arguments)
      #expect(run.status == 2, "\(run.stderr)")
      #expect(
        run.stderr
          == "sift: \(folder): a folder, not a catalog file (give a .sqlite file or a built-in catalog's name)\n",
        "\(run.stderr)")
    }
  }

  @Test(
    "every command's help has examples, its prose wraps as paragraphs, no example wraps at 80 columns",
    arguments: ["search", "filter", "import", "serve", "bench", "", "keys", "synonyms"])
  func help(_ command: String) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run((command.isEmpty ? [] : [command]) + ["--help"])
    #expect(run.status == 0)
    #expect(run.stdout.contains("Examples:"))
    #expect(run.stdout.contains(command.isEmpty ? "sift " : "sift \(command)"))
    // A source line break inside a sentence leaves a stub ("of the", "-negation,") before the
    // sentence goes on: the prose above the examples is one paragraph per line of text.
    let prose = run.stdout.components(separatedBy: "Examples:")[0].split(
      separator: "\n", omittingEmptySubsequences: false)
    // An example longer than a terminal of 80 columns is wrapped mid-command by the help's
    // printer: every line of them fits (a long one goes on after a backslash).
    let wide = try sift.run(
      (command.isEmpty ? [] : [command]) + ["--help"], environment: ["COLUMNS": "400"])
    let examples = wide.stdout.components(separatedBy: "Examples:").dropFirst().joined()
      .components(separatedBy: "USAGE:")[0].split(separator: "\n")
    for line in examples where line.count > 79 {
      Issue.record("\(command) --help has an example wider than 80 columns: \(line)")
    }
    for (line, next) in zip(prose, prose.dropFirst())
    where !line.hasPrefix(" ") && !line.isEmpty && line.count < 40
      && (next.first?.isLowercase == true || (next.hasPrefix("-") && !next.hasPrefix("--")))
    {
      Issue.record("\(command) --help breaks a sentence after \"\(line)\"")
    }
  }

  @Test("--version prints the newest version of CHANGELOG.md")
  func version() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["--version"])
    #expect(run.status == 0)
    let changelog = try String(
      contentsOf: SiftProcess.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    // The first `## [X.Y.Z] - DATE` heading is the newest release.
    let newest = try #require(
      changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.contains("Unreleased") })
    let version = newest.dropFirst("## [".count).prefix { $0 != "]" }
    #expect(!version.isEmpty)
    #expect(run.stdout == "\(version)\n")
  }
}

@Suite("sift bench", .tags(.endToEnd))
struct BenchCommandTests {
  @Test("--json prints one object with the contract's keys")
  func json() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let queries = try sift.write("queries.txt", "rose 2010\ncarnation\n\nda nang\n")
    let run = try sift.run(["bench", "--catalog", "products", "--queries", queries, "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let object = try #require(run.objects.first)
    #expect(run.lines.count == 1)
    #expect(object["keystrokes"] as? Int == 25)
    for key in ["p50_ms", "p90_ms", "p99_ms", "max_ms", "peak_rss_mb"] {
      #expect((object[key] as? Double).map { $0 >= 0 } == true, "\(key)")
    }
    let p50 = try #require(object["p50_ms"] as? Double)
    let max = try #require(object["max_ms"] as? Double)
    #expect(p50 <= max)
    let text = try sift.run(["bench", "--catalog", "products", "--queries", queries])
    #expect(text.stdout.contains("keystrokes  25 from 3 queries"))
    let missing = try sift.run(["bench", "--catalog", "products", "--queries", "nope.txt"])
    #expect(missing.status == 2)
    #expect(
      missing.stderr == "sift: cannot read the queries file nope.txt: No such file or directory\n")
    // A pipe has no size to read up to: read until it ends.
    let piped = try sift.run(
      ["bench", "--catalog", "products", "--queries", "-"], stdin: Data("rose 2010\n".utf8))
    #expect(piped.stdout.contains("keystrokes  9 from 1 query"), "\(piped.stdout)\(piped.stderr)")
  }

  @Test("one query of one letter: counts in the singular")
  func singular() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let queries = try sift.write("one.txt", "r\n")
    let text = try sift.run(["bench", "--catalog", "products", "--queries", queries])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stdout.contains("keystrokes  1 from 1 query\n"), "\(text.stdout)")
    #expect(text.stdout.contains("(1 keystroke starting a term)"), "\(text.stdout)")
    #expect(!text.stdout.contains("1 keystrokes"), "\(text.stdout)")
  }
}
