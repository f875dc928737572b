/// One line of editable text and its cursor, with the keys a shell's line editor reads: the
/// search field and every field of the edit form use it, so they edit alike.
///
/// ← → Home End and Ctrl-A (start) / Ctrl-E (end) move; Backspace and Delete remove a
/// character; Ctrl-U removes up to the cursor, Ctrl-K from it, Ctrl-W the word before it. The
/// search field keeps Ctrl-E for editing the selected item, so there End goes to the end.
public struct LineEditor: Hashable, Sendable {
  public private(set) var characters: [Character]
  /// How many characters are before the cursor.
  public private(set) var cursor: Int

  /// What a key did.
  public enum Outcome: Sendable, Equatable {
    /// The text changed (and the cursor maybe with it).
    case edited
    /// Only the cursor moved, or the key changed nothing (Backspace at the start).
    case moved
    /// Not an editing key: the caller's to handle.
    case ignored
  }

  /// `text` with the cursor at its end, or at `cursor` characters.
  public init(_ text: String, cursor: Int? = nil) {
    characters = Array(text)
    self.cursor = min(max(0, cursor ?? characters.count), characters.count)
  }

  public var text: String { String(characters) }

  public mutating func handle(_ key: Key) -> Outcome {
    switch key {
    case .character(let character):
      // Control characters (a pasted tab or line break) would be drawn as nothing.
      guard !character.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control })
      else { return .moved }
      characters.insert(character, at: cursor)
      cursor += 1
      return .edited
    case .backspace:
      guard cursor > 0 else { return .moved }
      characters.remove(at: cursor - 1)
      cursor -= 1
      return .edited
    case .delete, .control("d"):
      guard cursor < characters.count else { return .moved }
      characters.remove(at: cursor)
      return .edited
    case .left, .control("b"): cursor = max(0, cursor - 1)
    case .right, .control("f"): cursor = min(characters.count, cursor + 1)
    case .home, .control("a"): cursor = 0
    case .end, .control("e"): cursor = characters.count
    case .control("u"):
      guard cursor > 0 else { return .moved }
      characters.removeSubrange(0..<cursor)
      cursor = 0
      return .edited
    case .control("k"):
      guard cursor < characters.count else { return .moved }
      characters.removeSubrange(cursor...)
      return .edited
    case .control("w"):
      // The word before the cursor, and the spaces between it and the cursor.
      var start = cursor
      while start > 0, characters[start - 1].isWhitespace { start -= 1 }
      while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
      guard start < cursor else { return .moved }
      characters.removeSubrange(start..<cursor)
      cursor = start
      return .edited
    default:
      return .ignored
    }
    return .moved
  }

  /// What to draw of the text in `width` columns so the cursor shows, and the cursor's column
  /// in it. Text wider than the field scrolls: the cursor stays in the last column while it is
  /// past the first screenful, and "…" in the first column says some text is to the left.
  public func visible(width: Int) -> (text: String, cursorColumn: Int) {
    guard width > 1 else { return ("", 0) }
    let widths = characters.map { TerminalText.displayWidth(TerminalText.inert(String($0))) }
    let beforeCursor = widths[..<cursor].reduce(0, +)
    guard beforeCursor >= width else {
      return (fitting(from: 0, width: width, widths: widths), beforeCursor)
    }
    // Scrolled: "…", then the characters that end at the cursor in the columns left.
    var start = cursor
    var used = 1
    while start > 0, used + widths[start - 1] <= width - 1 {
      start -= 1
      used += widths[start]
    }
    return ("…" + fitting(from: start, width: width - 1, widths: widths), used)
  }

  /// The characters from `start` that fit in `width` columns.
  private func fitting(from start: Int, width: Int, widths: [Int]) -> String {
    var end = start
    var used = 0
    while end < characters.count, used + widths[end] <= width {
      used += widths[end]
      end += 1
    }
    return TerminalText.inert(String(characters[start..<end]))
  }
}
