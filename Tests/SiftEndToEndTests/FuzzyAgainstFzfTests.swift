import Foundation
import SiftTestSupport
import Testing

/// `sift filter --fuzzy` scores as `fzf --filter` does, compared with fzf itself (a Debian
/// package, installed when missing) on a few hundred seeded queries over airport-like names:
/// the same lines match, and the same line comes first — word starts and consecutive letters
/// weigh as fzf's do ("lhr" finds "London Heathrow Airport (LHR)" first).
@Suite("sift filter --fuzzy beside fzf", .tags(.endToEnd), .needs("fzf"))
struct FuzzyAgainstFzfTests {
  /// ASCII names in fzf's and Sift's common ground (no capitals inside a word, which fzf reads
  /// as camel case and folded text cannot): cities from the fixture, and airports named after
  /// them with a code.
  static func corpus(seed: UInt64) throws -> [String] {
    var random = SplitMix64(seed: seed)
    let sample = SiftProcess.fixtures.appendingPathComponent("cities-sample.jsonl")
    var cities: [String] = []
    for line in try String(contentsOf: sample, encoding: .utf8).split(separator: "\n") {
      guard
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let name = object["name"] as? String,
        name.unicodeScalars.allSatisfy({ $0.isASCII && $0 != "\t" }),
        !name.split(separator: " ").contains(where: {
          $0.dropFirst().contains(where: \.isUppercase)
        })
      else { continue }
      cities.append(name)
    }
    let kinds = ["International Airport", "Regional Airport", "Airport", "Airfield", "Air Base"]
    var lines = cities
    for city in cities.prefix(600) {
      let code = String(
        (0..<3).map { _ in Character(UnicodeScalar(UInt8.random(in: 65...90, using: &random))) })
      lines.append("\(city) \(kinds[Int.random(in: 0..<kinds.count, using: &random)]) (\(code))")
    }
    lines.append("London Heathrow Airport (LHR)")
    lines.append("Zurich Airport (ZRH)")
    lines.append("Dubendorf Air Base (LSMD)")
    lines.append("Lehrte Airfield")
    return lines
  }

  /// Queries of the kinds people type: a code, the start of a word, letters from across a name.
  static func queries(_ lines: [String], seed: UInt64) -> [String] {
    var random = SplitMix64(seed: seed ^ 0x5EED)
    var queries = ["lhr", "zrh", "heathrow", "zur air", "lon hea"]
    while queries.count < 300 {
      let line = lines[Int.random(in: 0..<lines.count, using: &random)].lowercased()
      let letters = Array(line.filter { $0.isLetter })
      guard letters.count >= 4 else { continue }
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        if let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")") {
          queries.append(String(line[line.index(after: open)..<close]))
        }
      case 1:
        let word = line.split(separator: " ").randomElement(using: &random) ?? ""
        queries.append(String(word.prefix(Int.random(in: 2...5, using: &random))))
      default:
        // Three or four letters in order from anywhere in the name.
        var picked = (0..<letters.count).shuffled(using: &random).prefix(
          Int.random(in: 3...4, using: &random))
        picked.sort()
        queries.append(String(picked.map { letters[$0] }))
      }
    }
    return queries
  }

  @Test("the same lines match and the same line comes first, over 300 seeded queries")
  func sameFirstLine() throws {
    try Host.require(package: "fzf", check: "command -v fzf")
    let seed = ProcessInfo.processInfo.environment["SIFT_SEED"].flatMap(UInt64.init) ?? 20_261_126
    print("FuzzyAgainstFzfTests seed \(seed) (SIFT_SEED to change it)")
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    let lines = try Self.corpus(seed: seed)
    let file = try sift.write("names.txt", lines.joined(separator: "\n") + "\n")
    let queries = Self.queries(lines, seed: seed)
    var sameSet = 0
    var sameFirst = 0
    var sameTop5 = 0
    var differences: [String] = []
    for query in queries {
      let fzf = Host.shell("fzf --filter '\(query)' < '\(file)'").output
        .split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
      let ours = try sift.run(
        ["filter", "--fuzzy", query], stdin: try Data(contentsOf: URL(fileURLWithPath: file))
      ).lines
      if Set(fzf) == Set(ours) { sameSet += 1 } else { differences.append("\(query): the lines") }
      if fzf.first == ours.first {
        sameFirst += 1
      } else {
        differences.append("\(query): fzf \(fzf.first ?? "-"), sift \(ours.first ?? "-")")
      }
      if fzf.prefix(5) == ours.prefix(5) { sameTop5 += 1 }
    }
    print(
      "sift filter --fuzzy beside fzf over \(queries.count) queries: the same lines \(sameSet), the same first line \(sameFirst), the same first five \(sameTop5)"
    )
    #expect(sameSet == queries.count, "\(differences.prefix(5))")
    // fzf's own examples, exactly.
    let lhr = try sift.run(
      ["filter", "--fuzzy", "lhr"], stdin: try Data(contentsOf: URL(fileURLWithPath: file)))
    #expect(lhr.lines.first == "London Heathrow Airport (LHR)")
    let zrh = try sift.run(
      ["filter", "--fuzzy", "zrh"], stdin: try Data(contentsOf: URL(fileURLWithPath: file)))
    #expect(zrh.lines.first == "Zurich Airport (ZRH)")
    #expect(sameFirst >= queries.count * 97 / 100, "\(differences.prefix(8))")
  }
}
