/// Turns grids into the bytes that draw them, sending only the rows that changed since the
/// last frame — no full-screen flicker on each key.
public struct ScreenWriter: Sendable {
  private var previous: Grid?

  public init() {}

  /// Forgets what is on the screen (after a resize): the next frame clears and draws it all.
  public mutating func invalidate() { previous = nil }

  /// The escape sequences that turn the last frame into `grid`, and place the cursor.
  public mutating func frame(_ grid: Grid, cursor: (x: Int, y: Int)?) -> String {
    var output = "\u{1B}[?25l"
    let full = previous.map { $0.width != grid.width || $0.height != grid.height } ?? true
    if full { output += "\u{1B}[0m\u{1B}[2J" }
    for y in 0..<grid.height where full || previous?.rows[y] != grid.rows[y] {
      output += "\u{1B}[\(y + 1);1H" + Self.row(grid.rows[y])
    }
    if let cursor {
      output += "\u{1B}[\(cursor.y + 1);\(cursor.x + 1)H\u{1B}[?25h"
    }
    previous = grid
    return output
  }

  /// One row with SGR codes only where the style changes.
  static func row(_ cells: [Cell]) -> String {
    var output = ""
    var current: CellStyle? = nil
    for cell in cells where !cell.isContinuation {
      if cell.style != current {
        output += sgr(cell.style)
        current = cell.style
      }
      output += cell.text
    }
    return output + "\u{1B}[0m"
  }

  static func sgr(_ style: CellStyle) -> String {
    var codes = ["0"]
    if style.bold { codes.append("1") }
    if style.dim { codes.append("2") }
    if style.underline { codes.append("4") }
    if style.reverse { codes.append("7") }
    if let color = style.color { codes.append(String(color)) }
    return "\u{1B}[" + codes.joined(separator: ";") + "m"
  }
}
