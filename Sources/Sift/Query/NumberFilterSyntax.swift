/// The value syntax of number filters: `10`, `=10`, `<10`, `<=10`, `>10`, `>=10`, `a..b`,
/// `a..`, `..b`. Numbers are written as `NumberText` reads them, in every locale.
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

  /// A number in a filter or a bare query word: `NumberText`'s grammar, shared with CSV cells and
  /// the terminal app's form.
  static func number<S: StringProtocol>(_ text: S) -> Double? { NumberText.parse(text) }
}
