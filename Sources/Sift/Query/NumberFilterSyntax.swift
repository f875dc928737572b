/// The value syntax of number filters: `10`, `=10`, `<10`, `<=10`, `>10`, `>=10`, `a..b`,
/// `a..`, `..b`. Numbers are written with digits and an optional `.` fraction, in every locale.
enum NumberFilterSyntax {
  enum Failure: Error, Hashable {
    /// An operator or range with no number yet (`<`, `..`): still being typed.
    case unfinished
    case notANumber
  }

  static func parse(_ value: String) -> Result<NumberPredicate, Failure> {
    let comparisons: [(String, (Double) -> NumberPredicate)] = [
      ("<=", NumberPredicate.lessOrEqual), (">=", NumberPredicate.greaterOrEqual),
      ("<", NumberPredicate.less), (">", NumberPredicate.greater), ("=", NumberPredicate.equal),
    ]
    for (symbol, make) in comparisons where value.hasPrefix(symbol) {
      let rest = value.dropFirst(symbol.count)
      if rest.isEmpty { return .failure(.unfinished) }
      guard let number = number(rest) else { return .failure(.notANumber) }
      return .success(make(number))
    }
    if let dots = value.range(of: "..") {
      let low = value[..<dots.lowerBound]
      let high = value[dots.upperBound...]
      switch (low.isEmpty, high.isEmpty) {
      case (true, true):
        return .failure(.unfinished)
      case (false, true):
        guard let low = number(low) else { return .failure(.notANumber) }
        return .success(.greaterOrEqual(low))
      case (true, false):
        guard let high = number(high) else { return .failure(.notANumber) }
        return .success(.lessOrEqual(high))
      case (false, false):
        guard let low = number(low), let high = number(high) else {
          return .failure(.notANumber)
        }
        return .success(.between(low, high))
      }
    }
    guard let number = number(value) else { return .failure(.notANumber) }
    return .success(.equal(number))
  }

  /// A decimal number: optional sign, digits, optional `.` and digits ("599", "16.99", "-3",
  /// "10."). Nothing else — no exponents, hex, `inf` or `nan` — so only what reads as a number is one.
  static func number<S: StringProtocol>(_ text: S) -> Double? {
    var digits = 0
    var dots = 0
    for (offset, character) in text.enumerated() {
      switch character {
      case "0"..."9": digits += 1
      case ".": dots += 1
      case "-", "+": if offset != 0 { return nil }
      default: return nil
      }
    }
    guard digits > 0, dots <= 1, digits <= 30 else { return nil }
    var normalized = String(text)
    if normalized.hasSuffix(".") { normalized.removeLast() }
    if normalized.hasPrefix("+") { normalized.removeFirst() }
    guard let value = Double(normalized), value.isFinite else { return nil }
    return value
  }
}
