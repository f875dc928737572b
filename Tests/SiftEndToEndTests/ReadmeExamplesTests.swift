import Foundation
import SiftTestSupport
import Testing

/// README sections whose `sh` block promises output: each `sift …` line is run as written (on
/// the built-in catalogs, in a data folder of its own) and its standard output compared, line
/// by line, with the `# ` comments under it.
@Suite("README: the examples that show their output", .tags(.endToEnd))
struct ReadmeExamplesTests {
  /// A command of a README block and the output its comments promise.
  struct Example: CustomStringConvertible {
    var arguments: [String]
    var promised: [String]
    var description: String { arguments.joined(separator: " ") }
  }

  static var readme: String {
    get throws {
      let url = SiftProcess.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")
      return try String(contentsOf: url, encoding: .utf8)
    }
  }

  /// A command line's words as a shell splits them: on spaces, except inside single quotes.
  static func shellWords(_ line: Substring) -> [String] {
    var words: [String] = []
    var word: String?
    var quoted = false
    for character in line {
      if character == "'" {
        quoted.toggle()
        word = word ?? ""
      } else if character == " ", !quoted {
        if let finished = word { words.append(finished) }
        word = nil
      } else {
        word = (word ?? "") + String(character)
      }
    }
    if let word { words.append(word) }
    return words
  }

  /// The first ```sh block after the heading `heading`, read as examples.
  static func examples(under heading: String, in markdown: String) -> [Example] {
    guard let start = markdown.range(of: "\n" + heading + "\n") else { return [] }
    let rest = markdown[start.upperBound...]
    guard let open = rest.range(of: "```sh\n"),
      let close = rest[open.upperBound...].range(of: "```")
    else { return [] }
    var examples: [Example] = []
    for line in rest[open.upperBound..<close.lowerBound].split(separator: "\n") {
      if line.hasPrefix("sift ") {
        examples.append(
          Example(arguments: Array(shellWords(line).dropFirst()), promised: []))
      } else if line.hasPrefix("# ") || line == "#", !examples.isEmpty {
        // A bare `#` promises an empty line.
        examples[examples.count - 1].promised.append(String(line.dropFirst(2)))
      }
    }
    return examples
  }

  @Test(
    "Either of two, synonyms, sort, ranges, snippets, several catalogs: every command prints what its comments say"
  )
  func sortRangesSnippets() throws {
    let examples = Self.examples(
      under: "### Either of two, synonyms, sort, number ranges, snippets, several catalogs",
      in: try Self.readme)
    #expect(examples.count == 8, "the README's block was read: \(examples)")
    #expect(examples[3].arguments.last == "white rose | carnation")
    try Self.expectPrinted(examples)
  }

  /// Runs `examples` in order, in one data folder, each printing what its comments say.
  static func expectPrinted(_ examples: [Example]) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    for example in examples {
      let run = try sift.run(example.arguments)
      #expect(run.status == 0, "\(example): \(run.stderr)")
      #expect(run.lines == example.promised, "\(example)")
    }
  }

  @Test(
    "Pinned and hidden results, a category's values: every command prints what its comments say",
    arguments: [("### Pinned and hidden results", 3), ("### A category's values, searched", 2)])
  func pinsAndCategoryValues(heading: String, count: Int) throws {
    let examples = Self.examples(under: heading, in: try Self.readme)
    #expect(examples.count == count, "the README's block was read: \(examples)")
    try Self.expectPrinted(examples)
  }

  @Test("Near a place: the file of towns imported, then every command prints what its comments say")
  func nearAPlace() throws {
    let heading = "### Near a place"
    let readme = try Self.readme
    let examples = Self.examples(under: heading, in: readme)
    #expect(examples.count == 7, "the README's block was read: \(examples)")
    let section = try #require(readme.range(of: "\n" + heading + "\n"))
    let rest = readme[section.upperBound...]
    let open = try #require(rest.range(of: "```jsonl\n"))
    let close = try #require(rest[open.upperBound...].range(of: "```"))
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    _ = try sift.write("towns.jsonl", String(rest[open.upperBound..<close.lowerBound]))
    for example in examples {
      let run = try sift.run(example.arguments)
      #expect(run.status == 0, "\(example): \(run.stderr)")
      #expect(run.lines == example.promised, "\(example)")
    }
  }

  @Test("examples are read from the block under their heading, comments as output")
  func reading() {
    let markdown = """
      intro
      ### Here
      text
      ```sh
      sift search --catalog x a
      # one
      #
      # two
      sift search b
      ```
      ```sh
      sift not-this
      ```
      """
    let read = Self.examples(under: "### Here", in: "\n" + markdown)
    #expect(read.map(\.arguments) == [["search", "--catalog", "x", "a"], ["search", "b"]])
    #expect(read.map(\.promised) == [["one", "", "two"], []])
  }
}
