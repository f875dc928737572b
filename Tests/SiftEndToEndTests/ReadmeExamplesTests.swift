import Foundation
import SiftTestSupport
import Testing

/// Sections of the README and of docs/ whose `sh` block promises output: each `sift …` line is
/// run as written (on the built-in catalogs, in a data folder of its own) and its standard
/// output compared, line by line, with the `# ` comments under it.
@Suite("README and docs: the examples that show their output", .tags(.endToEnd))
struct ReadmeExamplesTests {
  /// A command of a README block and the output its comments promise.
  struct Example: CustomStringConvertible {
    var arguments: [String]
    var promised: [String]
    var description: String { arguments.joined(separator: " ") }
  }

  /// A Markdown file of the project, by its path from the root.
  static func markdown(_ path: String) throws -> String {
    let url = SiftProcess.fixtures.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent(path)
    return try String(contentsOf: url, encoding: .utf8)
  }

  static var readme: String { get throws { try markdown("README.md") } }

  /// The command line's page, where the longer examples live.
  static var commandLine: String { get throws { try markdown("docs/command-line.md") } }

  /// The first block fenced as `language` after `heading`.
  static func block(_ language: String, under heading: String, in markdown: String) throws
    -> String
  {
    let section = try #require(markdown.range(of: "\n" + heading + "\n"))
    let rest = markdown[section.upperBound...]
    let open = try #require(rest.range(of: "```\(language)\n"))
    let close = try #require(rest[open.upperBound...].range(of: "```"))
    return String(rest[open.upperBound..<close.lowerBound])
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
      in: try Self.commandLine)
    #expect(examples.count == 8, "the block was read: \(examples)")
    #expect(examples[3].arguments.last == "white rose | carnation")
    try Self.expectPrinted(examples)
  }

  /// Runs `examples` in order, in one data folder holding `files`, each printing what its
  /// comments say.
  static func expectPrinted(_ examples: [Example], files: [String: String] = [:]) throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    for (name, text) in files { _ = try sift.write(name, text) }
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
    let examples = Self.examples(under: heading, in: try Self.commandLine)
    #expect(examples.count == count, "the block was read: \(examples)")
    try Self.expectPrinted(examples)
  }

  @Test("Near a place: the file of towns imported, then every command prints what its comments say")
  func nearAPlace() throws {
    let heading = "### Near a place"
    let page = try Self.commandLine
    let examples = Self.examples(under: heading, in: page)
    #expect(examples.count == 7, "the block was read: \(examples)")
    try Self.expectPrinted(
      examples, files: ["towns.jsonl": try Self.block("jsonl", under: heading, in: page)])
  }

  @Test("README, your own data: the pets imported, then every search prints what it shows")
  func ownData() throws {
    let heading = "## Your own data from the command line"
    let readme = try Self.readme
    let examples = Self.examples(under: heading, in: readme)
    #expect(examples.count == 5, "the README's block was read: \(examples)")
    #expect(examples.first?.arguments.prefix(2) == ["import", "pets.jsonl"])
    try Self.expectPrinted(
      examples, files: ["pets.jsonl": try Self.block("jsonl", under: heading, in: readme)])
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
