import Sift
import SiftTestSupport
import Testing

/// One grammar for numbers written as text: queries, CSV cells and the terminal app's form.
@Suite("Number text", .tags(.unit))
struct NumberTextTests {
  @Test(
    "what reads as a number is one",
    arguments: [
      ("599", 599.0), ("16.99", 16.99), ("-3", -3), ("+7", 7), ("10.", 10), (".5", 0.5),
      ("1e3", 1000), ("1E+3", 1000), ("2.5e-1", 0.25), ("1.e2", 100), ("007", 7),
      // Arabic-Indic and Persian digits, and the Arabic decimal separator (docs/command-line.md, "What folds").
      ("١٢", 12), ("۲۰۱۰", 2010), ("۱۶٫۹۹", 16.99), ("-٣", -3), ("٢0١0", 2010),
    ])
  func accepted(text: String, value: Double) {
    #expect(NumberText.parse(text) == value)
  }

  @Test(
    "nothing else is",
    arguments: [
      "", "-", "+", ".", "e3", "1e", "1e+", "1..2", "1.2.3", "--1", "1-", "1e3.5", "0x10",
      "inf", "nan", "1,000", " 1", "1 ", "1e400", "½", "१२", "٫", "٢٠x", "١٬٠٠٠",
    ])
  func refused(text: String) {
    #expect(NumberText.parse(text) == nil)
  }

  @Test("random ASCII text reads as a simple reference of the grammar reads it")
  func againstReference() {
    let seed: UInt64 = 0x5EED_0012
    print("seed \(seed)")
    var random = SplitMix64(seed: seed)
    let alphabet = Array("0123456789..++--eE x")
    // The grammar as a pattern; the value from its parts, each made plain for Swift's parser.
    func reference(_ text: String) -> Double? {
      guard let match = text.wholeMatch(of: /([+-]?)(\d*)(\.?)(\d*)(?:[eE]([+-]?\d+))?/),
        !(match.2.isEmpty && match.4.isEmpty)
      else { return nil }
      let whole = match.2.isEmpty ? "0" : String(match.2)
      let fraction = match.4.isEmpty ? "0" : String(match.4)
      guard let value = Double("\(whole).\(fraction)e\(match.5 ?? "0")"), value.isFinite else {
        return nil
      }
      return match.1 == "-" ? -value : value
    }
    for _ in 0..<20_000 {
      let text = String(
        (0..<Int.random(in: 0...8, using: &random)).map { _ in
          alphabet.randomElement(using: &random)!
        })
      #expect(NumberText.parse(text) == reference(text), "\(text.debugDescription)")
    }
  }

  @Test("every number Sift writes reads back as the same number")
  func roundTrip() {
    var random = SplitMix64(seed: 0x5EED_0011)
    for _ in 0..<5_000 {
      let value: Double =
        switch Int.random(in: 0..<3, using: &random) {
        case 0: Double(Int.random(in: -1_000_000...1_000_000, using: &random))
        case 1: Double.random(in: -1e6...1e6, using: &random)
        default:
          Double(
            sign: .plus, exponent: Int.random(in: -300...300, using: &random),
            significand: Double.random(in: 1..<2, using: &random))
        }
      let written = FieldValue.format(value)
      #expect(NumberText.parse(written) == value, "\(written)")
    }
  }

  @Test("queries read numbers with the same grammar")
  func queriesAgree() throws {
    var controller = try Fixtures.activeController(.products)
    let exponent = controller.type("year:<2.005e3")
    let plain = controller.type("year:<2005")
    #expect(exponent == plain && !plain.isEmpty)
  }
}
