import ArgumentParser
import Foundation
import Sift
import SiftLines

/// `sift filter`: lines from stdin, matching lines to stdout, like `fzf --filter`.
struct FilterCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "filter",
    abstract: "Print the lines of standard input that match the query, best first.",
    discussion: """
      --exact (the default): every term is a substring; "phrases" and -negation as in search.
      --fuzzy: every plain term is a subsequence, scored like fzf (consecutive letters and word \
      starts first). Both fold case, accents and width: "da nang" finds "Đà Nẵng". \
      Exit status 0 when a line matched, 1 when none did (as grep and fzf --filter).

      Examples:
        sift filter "da nang" < city-names.txt
        git ls-files | sift filter --fuzzy srcmain
        sift filter --no-sort -- -test < files.txt
      """
  )

  enum Mode: EnumerableFlag {
    case exact, fuzzy
  }

  @Flag(help: "Substring terms (default) or fuzzy subsequence terms.")
  var mode: Mode = .exact

  @Flag(name: .customLong("no-sort"), help: "Keep input order instead of ranking.")
  var noSort = false

  @Argument(help: "The query.")
  var query: [String] = []

  func run() throws {
    let output = StandardStreams.Output()
    let matched = StandardInput.withBytes { bytes -> Bool in
      // Invalid UTF-8 is searched with replacement characters but printed byte for byte.
      let matches = LineFilter.matchingLines(
        of: bytes, query: query.joined(separator: " "), mode: mode == .fuzzy ? .fuzzy : .exact,
        sorted: !noSort)
      for line in matches {
        output.write(bytes: UnsafeBufferPointer(rebasing: bytes[line]))
        output.write("\n")
      }
      return !matches.isEmpty
    }
    output.flush()
    // Nothing matched: 1, so that `sift filter q < f && …` reads as with grep.
    if !matched { throw ExitCode(1) }
  }
}
