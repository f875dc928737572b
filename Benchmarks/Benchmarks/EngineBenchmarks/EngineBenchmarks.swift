import Benchmark
import Foundation
import Sift
import SiftLines

/// The engine's hot paths on the real corpus: folding, a first-keystroke scan, a refining
/// keystroke, ranking. Set SIFT_CITY_NAMES to city-names.txt from Scripts/make-cities.
let cityNames: [String] = {
  let path = ProcessInfo.processInfo.environment["SIFT_CITY_NAMES"] ?? "city-names.txt"
  guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
    FileHandle.standardError.write(
      Data("set SIFT_CITY_NAMES to city-names.txt (make-cities)\n".utf8))
    return []
  }
  return text.split(separator: "\n").map(String.init)
}()

let schema = CatalogSchema(name: "names", fields: [.text("name")], titleField: "name")

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident], maxDuration: .seconds(5),
    maxIterations: 50)

  Benchmark("fold all names") { benchmark in
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32 << 20)
    for name in cityNames { blackHole(TextFolding.fold(name)) }
    blackHole(bytes)
  }

  let items = cityNames.enumerated().map {
    Item(id: ItemID(String($0.offset)), fields: ["name": .text($0.element)])
  }

  Benchmark("build index") { _ in
    blackHole(try FilteredCollection(schema: schema, items: items))
  }

  guard let collection = try? FilteredCollection(schema: schema, items: items) else {
    FileHandle.standardError.write(Data("the names schema was refused\n".utf8))
    return
  }
  for query in ["a", "san", "da nang", "zzzq"] {
    Benchmark("first keystroke \"\(query)\"") { _ in
      var copy = collection
      copy.filter(by: SearchCriteria(text: query))
      blackHole(copy.rows.count)
    }
  }

  var narrowed = collection
  narrowed.filter(by: SearchCriteria(text: "san f"))
  Benchmark("refining keystroke \"san f\" → \"san fr\"") { _ in
    var copy = narrowed
    copy.filter(by: SearchCriteria(text: "san fr"))
    blackHole(copy.rows.count)
  }

  let lines = LineFilter(lines: cityNames)
  Benchmark("line filter, ranked \"a\"") { _ in
    blackHole(lines.matches("a").count)
  }
}
