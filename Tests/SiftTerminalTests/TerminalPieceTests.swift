import SiftTestSupport
import Testing

@testable import SiftTerminal

@Suite("Keys, cells and drawing", .tags(.unit))
struct TerminalPieceTests {
  @Test(
    "bytes decode to keys",
    arguments: [
      ("a", [Key.character("a")]), ("é", [.character("é")]), ("서", [.character("서")]),
      ("\r", [.enter]), ("\u{7F}", [.backspace]), ("\t", [.tab]), ("\u{1B}[Z", [.shiftTab]),
      ("\u{1B}[A\u{1B}[B", [.up, .down]), ("\u{1B}OP", [.f1]), ("\u{1B}[11~", [.f1]),
      (
        "\u{0E}\u{05}\u{04}\u{11}\u{03}",
        [.control("n"), .control("e"), .control("d"), .control("q"), .control("c")]
      ),
      ("\u{1B}[5~\u{1B}[6~\u{1B}[3~", [.pageUp, .pageDown, .delete]), ("\u{1B}[1;5A", [.up]),
      ("\u{1B}[?9z", []),
    ])
  func decode(_ bytes: String, _ keys: [Key]) {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array(bytes.utf8)) == keys)
  }

  @Test("split sequences wait for their end; a lone ESC is Esc after a pause")
  func partial() {
    var decoder = KeyDecoder()
    #expect(decoder.decode([0x1B, 0x5B]) == [])
    #expect(decoder.decode([0x41]) == [.up])
    #expect(decoder.decode([0xEC]) == [])
    #expect(decoder.decode([0x84, 0x9C]) == [.character("서")])
    #expect(decoder.decode([0x1B]) == [])
    #expect(decoder.hasPendingEscape)
    #expect(decoder.flushEscape() == [.escape])
    #expect(decoder.decode([0x1B, 0x61]) == [.escape, .character("a")])
  }

  @Test("cells: wide characters take two columns, marks none, controls are inert")
  func cells() {
    var grid = Grid(width: 12, height: 1)
    let end = grid.put("서울e\u{301}\u{1B}[2J", x: 0, y: 0)
    #expect(grid.lines[0] == "서울é␛[2J")
    #expect(end == 9)
    #expect(grid.rows[0][1].isContinuation && grid.rows[0][3].isContinuation)
    #expect(!grid.lines[0].contains("\u{1B}"))
  }

  @Test(
    "long text is cut with … by width, never wrapped",
    arguments: [
      ("Crouching Tiger, Hidden Dragon", 10, "Crouching…"), ("서울특별시 여행", 7, "서울특…"),
      ("ab", 2, "ab"), ("👍🏽👍🏽👍🏽", 5, "👍🏽👍🏽…"),
    ])
  func truncation(_ text: String, _ width: Int, _ expected: String) {
    var grid = Grid(width: 20, height: 2)
    grid.put(text, x: 0, y: 0, maxWidth: width)
    #expect(grid.lines[0] == expected)
    #expect(grid.lines[1] == "")
  }

  @Test(
    "display widths",
    arguments: [
      ("abc", 3), ("서울", 4), ("東京", 4), ("ｶﾞ", 2), ("e\u{301}", 1), ("👍🏽", 2), ("❤️", 2), ("", 0),
    ])
  func widths(_ text: String, _ width: Int) {
    #expect(TerminalText.displayWidth(text) == width)
  }

  @Test("only changed rows are redrawn")
  func diffing() {
    var writer = ScreenWriter()
    var grid = Grid(width: 10, height: 3)
    grid.put("one", x: 0, y: 0)
    let first = writer.frame(grid, cursor: (3, 0))
    #expect(
      first.contains("\u{1B}[2J") && first.contains("\u{1B}[1;1H") && first.contains("\u{1B}[3;1H"))
    grid.put("two", x: 0, y: 1)
    let second = writer.frame(grid, cursor: nil)
    #expect(!second.contains("\u{1B}[2J"))
    #expect(
      second.contains("\u{1B}[2;1H") && !second.contains("\u{1B}[1;1H")
        && !second.contains("\u{1B}[3;1H"))
    #expect(writer.frame(grid, cursor: nil) == "\u{1B}[?25l")
    writer.invalidate()
    #expect(writer.frame(grid, cursor: nil).contains("\u{1B}[2J"))
  }
}
