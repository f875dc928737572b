import Foundation
import SiftTestSupport
import Testing

/// `sift serve --record-searches` counting finished searches into a catalog file, and
/// `sift suggestions` reading them back after the server stops.
@Suite("sift suggestions", .tags(.endToEnd))
struct SuggestionsCommandTests {
  @Test("finished searches are counted only when asked for, kept in the file, and listed")
  func recordedAndListed() throws {
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try sift.importCitySample()
    let file = sift.path("cities.sqlite")
    // Without the flag nothing is counted, record=1 or not.
    let plain = try ServeCommandTests.Server(sift, ["--catalog", file])
    _ = try plain.request("GET", "/catalogs/cities/search?q=paris&record=1")
    #expect(plain.stop().status == 0)
    #expect(
      try sift.run(["suggestions", "--catalog", file]).stderr == "No recorded searches match\n")

    let server = try ServeCommandTests.Server(sift, ["--catalog", file, "--record-searches"])
    for (query, times) in [("paris", 3), ("Berlin", 2), ("zzqx", 2), ("par", 1)] {
      for _ in 0..<times {
        let (status, _) = try server.request("GET", "/catalogs/cities/search?q=\(query)&record=1")
        #expect(status == 200)
      }
    }
    // A keystroke on the way is not a finished search.
    _ = try server.request("GET", "/catalogs/cities/search?q=pari")
    let served = try server.request("GET", "/catalogs/cities/suggestions?q=pa").json
    let texts = (served["suggestions"] as? [[String: Any]] ?? []).compactMap {
      $0["text"] as? String
    }
    #expect(texts == ["paris", "par"])
    #expect(served["found_nothing"] == nil, "for who may edit only")
    #expect(server.stop().status == 0)

    let listed = try sift.run(["suggestions", "--catalog", file])
    #expect(listed.stdout == "paris   3\nBerlin  2\npar     1\n", "\(listed.stderr)")
    #expect(try sift.run(["suggestions", "--catalog", file, "ber"]).stdout == "Berlin  2\n")
    let json = try sift.run(["suggestions", "--catalog", file, "--json", "--limit", "1"])
    #expect(json.stdout == #"{"count":3,"text":"paris"}"# + "\n")
    let failed = try sift.run(["suggestions", "--catalog", file, "--found-nothing"])
    #expect(failed.stdout == "zzqx  2\n")
  }
}
