import Foundation
import SiftTestSupport
import Testing

@Suite("sift filter", .tags(.endToEnd))
struct FilterCommandTests {
  static let names = """
    Đà Nẵng
    Da Nang
    Hanoi
    Nang Rong
    San Francisco
    san jose
    Danang City
    Straße
    서울
    """

  func filter(_ arguments: [String], _ input: String = names) throws -> [String] {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let run = try sift.run(["filter"] + arguments, stdin: Data((input + "\n").utf8))
    // 0 when a line matched, 1 when none did, as grep and fzf --filter.
    #expect(run.status == (run.lines.isEmpty ? 1 : 0), "\(arguments)")
    return run.lines
  }

  @Test("exact: folded substrings, all terms, ranked")
  func exact() throws {
    #expect(try filter(["da nang"]) == ["Đà Nẵng", "Da Nang", "Danang City"])
    #expect(try filter(["--exact", "strasse"]) == ["Straße"])
    #expect(try filter(["서우"]) == ["서울"])
    #expect(try filter(["san"]) == ["San Francisco", "san jose"])
    // Word starts first, the first word before later ones, then input order.
    #expect(try filter(["nang"]) == ["Nang Rong", "Đà Nẵng", "Da Nang", "Danang City"])
    #expect(try filter(["--", "-a"]) == ["서울"])
    #expect(try filter(["zzzq"]) == [])
  }

  @Test("`a | b` keeps lines with either, exact and fuzzy (as fzf's `|`)")
  func eitherOfTwo() throws {
    let lines = "red rose\ntulip\nxyz\nrosemary"
    // "rose" is a finished word beside the `|`: a whole word (red rose) before one it only
    // begins (rosemary).
    #expect(try filter(["--exact", "rose | tulip"], lines) == ["tulip", "red rose", "rosemary"])
    #expect(try filter(["--fuzzy", "rse | tlp"], lines) == ["red rose", "rosemary", "tulip"])
    #expect(try filter(["--fuzzy", "rse | tlp", "red"], lines) == ["red rose"])
  }

  @Test("kana, Arabic-script letters and digits find their other spelling")
  func scripts() throws {
    let lines = "ヨコハマ\nたかおし\nکهریز\nمدرسة\nRoute 2010\nTokyo"
    #expect(try filter(["よこはま"], lines) == ["ヨコハマ"])
    #expect(try filter(["タカオ"], lines) == ["たかおし"])
    #expect(try filter(["كهريز"], lines) == ["کهریز"])
    #expect(try filter(["مدرسه"], lines) == ["مدرسة"])
    #expect(try filter(["٢٠١٠"], lines) == ["Route 2010"])
    #expect(try filter(["--fuzzy", "۲۱"], lines) == ["Route 2010"])
  }

  @Test("--no-sort keeps input order")
  func noSort() throws {
    #expect(
      try filter(["--no-sort", "nang"]) == ["Đà Nẵng", "Da Nang", "Nang Rong", "Danang City"])
    #expect(try filter(["ng"]) == ["Nang Rong", "Danang City", "Đà Nẵng", "Da Nang"])
    #expect(try filter(["rong"]).first == "Nang Rong")
  }

  @Test("fuzzy: subsequences, best first")
  func fuzzy() throws {
    #expect(try filter(["--fuzzy", "dnang"]).prefix(2) == ["Đà Nẵng", "Da Nang"])
    #expect(try filter(["--fuzzy", "sfco"]) == ["San Francisco"])
    #expect(try filter(["--fuzzy", "xyz"]) == [])
    #expect(try filter(["--fuzzy", "nr"]).first == "Nang Rong")
  }

  @Test("invalid UTF-8 lines are matched and printed byte for byte")
  func rawBytes() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let input: [UInt8] = Array("caf".utf8) + [0xE9] + Array(" latin-1\nplain\n".utf8)
    let run = try sift.run(["filter", "latin"], stdin: Data(input))
    #expect(Array(run.stdoutData) == Array("caf".utf8) + [0xE9] + Array(" latin-1\n".utf8))
    let plain = try sift.run(["filter", "--fuzzy", "pln"], stdin: Data(input))
    #expect(plain.stdout == "plain\n")
  }

  @Test(
    "a regular file on stdin (mapped, not read) gives what a pipe gives; CRLF and no final newline")
  func fileOnStdin() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let text = "Đà Nẵng\r\nDa Nang\nHanoi\r\nDanang City"
    let file = try sift.write("names.txt", text)
    for query in ["da nang", "hanoi", "city", "zzzq"] {
      let mapped = Host.shell(
        "'\(SiftProcess.binary.path)' filter '\(query)' < '\(file)'")
      let piped = try sift.run(["filter", query], stdin: Data(text.utf8))
      #expect(mapped.status == (query == "zzzq" ? 1 : 0), "\(query)")
      #expect(piped.status == mapped.status, "\(query)")
      #expect(mapped.output == piped.stdout, "\(query)")
    }
    let mapped = Host.shell("'\(SiftProcess.binary.path)' filter nang < '\(file)'")
    #expect(mapped.output == "Đà Nẵng\nDa Nang\nDanang City\n")
    let empty = try sift.write("empty.txt", "")
    #expect(
      Host.shell("'\(SiftProcess.binary.path)' filter a < '\(empty)'") == (1, ""))
  }
}
