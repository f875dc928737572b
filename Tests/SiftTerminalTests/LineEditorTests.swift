import SiftTestSupport
import Testing

@testable import SiftTerminal

/// The line editor of the search field and the form, against a model written here.
@Suite("Line editor", .tags(.unit))
struct LineEditorTests {
  /// The editor after `keys`, as "text|" with the cursor marked.
  static func typed(_ start: String, cursor: Int? = nil, _ keys: [Key]) -> String {
    var line = LineEditor(start, cursor: cursor)
    for key in keys { _ = line.handle(key) }
    var characters = line.characters.map(String.init)
    characters.insert("|", at: line.cursor)
    return characters.joined()
  }

  static func typing(_ text: String) -> [Key] { text.map(Key.character) }

  @Test(
    "the issue's findings and the shell's keys",
    arguments: [
      // "abc", ←←, "X" gave "abcX": the cursor moves and typing inserts there.
      ("", nil, typing("abc") + [.left, .left] + typing("X"), "aX|bc"),
      // Ctrl-U clears the field: "White Rose" + Ctrl-U + "White Lily" is "White Lily".
      ("White Rose", nil, [.control("u")] + typing("White Lily"), "White Lily|"),
      ("abc def", 2, [.control("k")], "ab|"),
      ("abc def", nil, [.control("a")] + typing(">"), ">|abc def"),
      ("abc def", 0, [.control("e")] + typing("<"), "abc def<|"),
      ("abc def", 0, [.end, .home, .right], "a|bc def"),
      ("rose  red  ", nil, [.control("w")], "rose  |"),
      ("rose red", 4, [.control("w")], "| red"),
      ("ab", nil, [.backspace, .backspace, .backspace], "|"),
      ("ab", 0, [.delete, .delete, .delete], "|"),
      ("Đà Nẵng", 2, [.backspace] + typing("a"), "Đa| Nẵng"),
      ("ab", nil, [.character("\t"), .character("\n")], "ab|"),
    ] as [(String, Int?, [Key], String)])
  func shellKeys(_ start: String, _ cursor: Int?, _ keys: [Key], _ expected: String) {
    #expect(Self.typed(start, cursor: cursor, keys) == expected)
  }

  @Test("random keys agree with a reference model", arguments: [41, 42, 43] as [UInt64])
  func againstModel(seed: UInt64) {
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let palette: [Key] = [
      .character("a"), .character("b"), .character(" "), .character("é"), .character("🌹"),
      .backspace, .delete, .left, .right, .home, .end, .control("a"), .control("e"),
      .control("u"), .control("k"), .control("w"),
    ]
    var line = LineEditor("")
    var text: [Character] = []
    var cursor = 0
    for step in 0..<5_000 {
      let key = palette[Int(random.next() % UInt64(palette.count))]
      _ = line.handle(key)
      switch key {
      case .character(let c):
        text.insert(c, at: cursor)
        cursor += 1
      case .backspace where cursor > 0:
        text.remove(at: cursor - 1)
        cursor -= 1
      case .delete where cursor < text.count: text.remove(at: cursor)
      case .left: cursor = max(0, cursor - 1)
      case .right: cursor = min(text.count, cursor + 1)
      case .home, .control("a"): cursor = 0
      case .end, .control("e"): cursor = text.count
      case .control("u"):
        text.removeFirst(cursor)
        cursor = 0
      case .control("k"): text.removeLast(text.count - cursor)
      case .control("w"):
        let before = String(text[..<cursor])
        let kept = before.reversed().drop { $0 == " " }.drop { $0 != " " }
        text = Array(String(kept.reversed())) + text[cursor...]
        cursor = kept.count
      default: break
      }
      if line.characters != text || line.cursor != cursor {
        Issue.record(
          "step \(step) after \(key): \(line.text)/\(line.cursor), model \(String(text))/\(cursor)")
        return
      }
    }
  }

  @Test("text wider than the field scrolls: the cursor always shows, … marks what is left of it")
  func scrolling() {
    let long = String(repeating: "abcdefghij", count: 10)
    var line = LineEditor(long)
    var shown = line.visible(width: 20)
    #expect(shown.text == "…" + String(long.suffix(18)))
    #expect(shown.cursorColumn == 19)
    for _ in 0..<95 { _ = line.handle(.left) }
    shown = line.visible(width: 20)
    #expect(shown.text == "abcdefghijabcdefghij")
    #expect(shown.cursorColumn == 5)
    // Wide characters take two columns and are never cut in half.
    line = LineEditor(String(repeating: "東京", count: 20))
    shown = line.visible(width: 10)
    #expect(shown.text == "…東京東京")
    #expect(shown.cursorColumn == 9)
    #expect(LineEditor("short").visible(width: 10) == ("short", 5))
  }
}
