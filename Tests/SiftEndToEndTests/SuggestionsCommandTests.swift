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

  @Test(
    "recording is bounded: anonymous searches a minute, text length, what one save writes",
    .needs("sqlite3"))
  func bounded() throws {
    try CrashTests.ensureSQLite()
    let sift = try SiftProcess()
    defer { sift.cleanup() }
    try sift.importCitySample()
    let file = sift.path("cities.sqlite")
    let server = try ServeCommandTests.Server(sift, ["--catalog", file, "--record-searches"])
    // A script of random texts: only the first 120 a minute count (anonymous searches), and a
    // text of more than 100 characters never does.
    var random = SplitMix64(seed: 11)
    for index in 0..<150 {
      let word = String((0..<6).map { _ in "abcdefghij".randomElement(using: &random)! })
      let (status, _) = try server.request(
        "GET", "/catalogs/cities/search?q=\(word)\(index)&record=1&limit=0")
      #expect(status == 200)
    }
    let long = String(repeating: "x", count: 101)
    _ = try server.request("GET", "/catalogs/cities/search?q=\(long)&record=1&limit=0")
    #expect(server.stop().status == 0)
    let listed = try sift.run([
      "suggestions", "--catalog", file, "--found-nothing", "--limit", "1000",
    ])
    // 120 at once, then two a second as the minute refills.
    #expect((120...135).contains(listed.lines.count), "\(listed.lines.count) recorded")
    #expect(!listed.stdout.contains(long))
    // Written by key, a row each: the file holds what the history holds.
    let rows = Host.shell("sqlite3 '\(file)' 'SELECT count(*) FROM search_history'").output
    #expect(rows.trimmingCharacters(in: .whitespacesAndNewlines) == "\(listed.lines.count)")
  }
}
