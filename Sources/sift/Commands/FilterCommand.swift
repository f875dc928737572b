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

  /// The byte range of each line, without its "\n" or "\r\n", found with memchr.
  static func lineRanges(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
    guard let base = bytes.baseAddress else { return [] }
    var ranges: [Range<Int>] = []
    var start = 0
    while start < bytes.count {
      let end: Int
      if let found = memchr(base + start, 0x0A, bytes.count - start) {
        end = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
      } else {
        end = bytes.count
      }
      var lineEnd = end
      if lineEnd > start, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
      ranges.append(start..<lineEnd)
      start = end + 1
    }
    return ranges
  }
}
