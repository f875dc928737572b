import ArgumentParser
import Foundation
import Sift

/// `sift filter`: lines from stdin, matching lines to stdout, like `fzf --filter`.
struct FilterCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "filter",
    abstract: "Print the lines of standard input that match the query, best first.",
    discussion: """
      --exact (the default): every term is a substring; "phrases" and -negation as in search.
      --fuzzy: every plain term is a subsequence, scored like fzf (consecutive letters and word
      starts first). Both fold case, accents and width: "da nang" finds "Đà Nẵng".

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
    let input = FileHandle.standardInput.readDataToEndOfFile()
    let output = StandardStreams.Output()
    input.withUnsafeBytes { raw in
      let bytes = raw.bindMemory(to: UInt8.self)
      let lines = Self.lineRanges(bytes)
      // Invalid UTF-8 is searched with replacement characters but printed byte for byte.
      let filter = LineFilter(utf8: bytes, lines: lines)
      let matches = filter.matches(
        query.joined(separator: " "), mode: mode == .fuzzy ? .fuzzy : .exact, sorted: !noSort)
      for line in matches {
        output.write(bytes: UnsafeBufferPointer(rebasing: bytes[lines[line]]))
        output.write("\n")
      }
    }
    output.flush()
  }

  /// The byte range of each line, without its "\n" or "\r\n".
  static func lineRanges(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    ranges.reserveCapacity(bytes.count / 12 + 1)
    var start = 0
    for index in bytes.indices where bytes[index] == 0x0A {
      let end = index > start && bytes[index - 1] == 0x0D ? index - 1 : index
      ranges.append(start..<end)
      start = index + 1
    }
    if start < bytes.count {
      let end = bytes[bytes.count - 1] == 0x0D ? bytes.count - 1 : bytes.count
      ranges.append(start..<end)
    }
    return ranges
  }
}
