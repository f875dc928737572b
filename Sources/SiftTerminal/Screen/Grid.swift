/// How a cell is drawn.
public struct CellStyle: Hashable, Sendable {
  public var bold = false
  public var dim = false
  public var reverse = false
  public var underline = false
  /// An ANSI foreground colour (30…37, 90…97), or nil for the default.
  public var color: UInt8?

  public init(
    bold: Bool = false, dim: Bool = false, reverse: Bool = false, underline: Bool = false,
    color: UInt8? = nil
  ) {
    self.bold = bold
    self.dim = dim
    self.reverse = reverse
    self.underline = underline
    self.color = color
  }

  public static let plain = CellStyle()
  public static let bold = CellStyle(bold: true)
  public static let dim = CellStyle(dim: true)
  public static let reverse = CellStyle(reverse: true)
  /// Matched text: bold and yellow.
  public static let highlight = CellStyle(bold: true, color: 33)
}

/// One column of the screen: a grapheme cluster (already made inert) and its style. A wide
/// character occupies its cell and a `continuation` cell after it.
public struct Cell: Hashable, Sendable {
  public var text: String
  public var style: CellStyle
  public var isContinuation: Bool

  public static let blank = Cell(text: " ", style: .plain, isContinuation: false)
}

/// A screen's worth of cells: what the terminal app draws, and what tests read.
public struct Grid: Hashable, Sendable {
  public let width: Int
  public let height: Int
  public private(set) var rows: [[Cell]]

  public init(width: Int, height: Int) {
    self.width = max(0, width)
    self.height = max(0, height)
    rows = Array(repeating: Array(repeating: .blank, count: self.width), count: self.height)
  }

  /// The rows as plain text, trailing spaces removed: what a person reads.
  public var lines: [String] {
    rows.map { row in
      var line = ""
      for cell in row where !cell.isContinuation { line += cell.text }
      while line.hasSuffix(" ") { line.removeLast() }
      return line
    }
  }

  public var text: String { lines.joined(separator: "\n") }

  /// Writes `text` from column `x` of row `y`, made inert, cut to `maxWidth` columns (default:
  /// the rest of the row) with "…" when it does not fit. Never wraps into the next row.
  /// Returns the column after the last one written.
  @discardableResult
  public mutating func put(
    _ text: String, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int? = nil
  ) -> Int {
    put([(text, style)], x: x, y: y, maxWidth: maxWidth)
  }

  /// Writes styled segments in a row; see `put(_:x:y:style:maxWidth:)`.
  @discardableResult
  public mutating func put(
    _ segments: [(String, CellStyle)], x: Int, y: Int, maxWidth: Int? = nil
  ) -> Int {
    guard y >= 0, y < height, x < width else { return x }
    let limit = min(width, x + (maxWidth ?? width))
    var characters: [(Character, CellStyle)] = []
    for (text, style) in segments {
      for character in TerminalText.inert(text) { characters.append((character, style)) }
    }
    let total = characters.reduce(0) { $0 + TerminalText.displayWidth(of: $1.0) }
    let truncating = x + total > limit
    let available = truncating ? limit - 1 : limit
    var column = max(0, x)
    for (character, style) in characters {
      let cellWidth = TerminalText.displayWidth(of: character)
      if cellWidth == 0 {
        // A lone combining mark or invisible character: attach it to the previous cell.
        if column > 0, column <= width, !rows[y][column - 1].isContinuation {
          rows[y][column - 1].text.append(character)
        }
        continue
      }
      if column + cellWidth > available { break }
      rows[y][column] = Cell(text: String(character), style: style, isContinuation: false)
      if cellWidth == 2 {
        rows[y][column + 1] = Cell(text: "", style: style, isContinuation: true)
      }
      column += cellWidth
    }
    if truncating, column < limit {
      rows[y][column] = Cell(text: "…", style: characters.last?.1 ?? .plain, isContinuation: false)
      column += 1
    }
    return column
  }

  /// Fills a row span with a style (a selected row's reverse video, a bar's background).
  public mutating func fill(y: Int, from x: Int = 0, to end: Int? = nil, style: CellStyle) {
    guard y >= 0, y < height else { return }
    for column in max(0, x)..<min(width, end ?? width) {
      rows[y][column].style = style.merged(over: rows[y][column].style)
    }
  }
}

extension CellStyle {
  /// This style's reverse/dim on top of a cell's own emphasis.
  func merged(over base: CellStyle) -> CellStyle {
    var result = base
    result.reverse = reverse || base.reverse
    result.dim = dim || base.dim
    result.bold = bold || base.bold
    result.underline = underline || base.underline
    if color != nil { result.color = color }
    return result
  }
}
