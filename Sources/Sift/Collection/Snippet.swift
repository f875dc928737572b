/// A long text cut to a few words around where the search matched it, with "…" where words
/// were left out and the highlights moved onto the cut text: what a result shows of a
/// description (`sift search --crop 12`, the API's `crop=12`).
public struct Snippet: Hashable, Sendable {
  public var text: String
  /// Where the search matched `text`.
  public var ranges: [Range<String.Index>]
  /// Whether words were left out.
  public var isCropped: Bool

  /// What stands for the words left out.
  public static let ellipsis = "…"

  /// `text` cut to at most `words` words (runs of characters between whitespace): the window
  /// that holds the most of `ranges` (a range longer than it: as much of it as fits), the first
  /// of them near its middle; the first words when nothing matched. A text of `words` words or
  /// fewer is kept whole.
  public init(_ text: String, ranges: [Range<String.Index>], words: Int) {
    let spans = Self.wordSpans(of: text)
    let count = max(1, words)
    guard spans.count > count else {
      self.init(text: text, ranges: ranges, isCropped: false)
      return
    }
    // The words each range touches.
    let touched = ranges.compactMap { range -> ClosedRange<Int>? in
      guard let first = spans.firstIndex(where: { $0.upperBound > range.lowerBound }),
        let last = spans.lastIndex(where: { $0.lowerBound < range.upperBound }), first <= last
      else { return nil }
      return first...last
    }
    // The window holding the most ranges whole, then touching the most (a phrase longer than
    // the window), then with the first of them nearest its middle.
    var start = 0
    var best = (whole: 0, touching: 0, offCentre: Int.max)
    for candidate in 0...(spans.count - count) {
      let window = candidate...(candidate + count - 1)
      let touching = touched.filter { $0.overlaps(window) }
      guard let first = touching.first else { continue }
      let whole = touching.count {
        window.contains($0.lowerBound) && window.contains($0.upperBound)
      }
      let offCentre = abs(first.lowerBound - candidate - (count - 1) / 2)
      if (whole, touching.count, -offCentre) > (best.whole, best.touching, -best.offCentre) {
        best = (whole, touching.count, offCentre)
        start = candidate
      }
    }
    let end = start + count - 1
    let cut = spans[start].lowerBound..<spans[end].upperBound
    let before = start > 0 ? Self.ellipsis : ""
    let after = end < spans.count - 1 ? Self.ellipsis : ""
    let cropped = before + text[cut] + after
    // Each range clipped to the cut, at the same characters of the new text.
    let shift = before.utf8.count - text.utf8.distance(from: text.startIndex, to: cut.lowerBound)
    let moved = ranges.compactMap { range -> Range<String.Index>? in
      let clipped = range.clamped(to: cut)
      guard !clipped.isEmpty else { return nil }
      let lower = text.utf8.distance(from: text.startIndex, to: clipped.lowerBound) + shift
      let upper = text.utf8.distance(from: text.startIndex, to: clipped.upperBound) + shift
      return cropped.utf8.index(
        cropped.startIndex, offsetBy: lower)..<cropped.utf8.index(
          cropped.startIndex, offsetBy: upper)
    }
    self.init(text: cropped, ranges: moved, isCropped: true)
  }

  private init(text: String, ranges: [Range<String.Index>], isCropped: Bool) {
    self.text = text
    self.ranges = ranges
    self.isCropped = isCropped
  }

  /// The ranges of `text`'s words: runs of characters that are not whitespace.
  static func wordSpans(of text: String) -> [Range<String.Index>] {
    var spans: [Range<String.Index>] = []
    var start: String.Index?
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(after: index)
      if text[index].isWhitespace {
        if let wordStart = start { spans.append(wordStart..<index) }
        start = nil
      } else if start == nil {
        start = index
      }
      index = next
    }
    if let wordStart = start { spans.append(wordStart..<text.endIndex) }
    return spans
  }
}

extension PageResult {
  /// The result with every text value but the title cut to `words` words around its
  /// highlights (`Snippet`); `croppedFields` names the fields that lost words. Nil words: the
  /// result as it is.
  public func cropped(toWords words: Int?, titleField: String) -> PageResult {
    guard let words else { return self }
    var result = self
    for (position, field) in fields.enumerated() where field.name != titleField {
      let texts: [String]
      switch field.value {
      case .text(let text): texts = [text]
      case .texts(let values): texts = values
      case .number, .bool, .null, .list, .object, .vector: continue
      }
      var values: [String] = []
      var highlights: [ShownField.Highlight] = []
      var cut = false
      for text in texts {
        let ranges = field.highlights.first { $0.text == text }?.ranges ?? []
        let snippet = Snippet(text, ranges: ranges, words: words)
        values.append(snippet.text)
        if !snippet.ranges.isEmpty {
          highlights.append(.init(text: snippet.text, ranges: snippet.ranges))
        }
        cut = cut || snippet.isCropped
      }
      guard cut else { continue }
      result.fields[position].value =
        if case .text = field.value { .text(values[0]) } else { .texts(values) }
      result.fields[position].highlights = highlights
      result.croppedFields.append(field.name)
    }
    return result
  }
}
