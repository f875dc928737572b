import Foundation
import SiftTestSupport
import Testing

/// Folding, matching and number filters never read the process locale: `sift` run under a real
/// Vietnamese, Turkish and German locale answers exactly as under C. (Turkish lowercases `I` to
/// `ı`; German writes `16,99`; a locale-aware fold or number parser would differ here.)
@Suite("Process locales", .tags(.endToEnd), .needs("localedef"))
struct LocaleTests {
  typealias Tmux = TerminalAppTests.Tmux

  static let names = """
    İstanbul
    DIYARBAKIR
    Iğdır
    Đà Nẵng
    Straße
    Ärger
    Ilıca
    """

  static let queries = [
    "istanbul", "diyarbakir", "IĞDIR", "ılıca", "da nang", "ĐÀ NẴNG", "strasse", "STRASSE", "arger",
    "i",
  ]

  @Test("vi_VN, tr_TR and de_DE give the C locale's results, which are the folded ones")
  func localesChangeNothing() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("sift-locales-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.ensureLocaledef()
    let locales = ["vi_VN": "Vietnamese", "tr_TR": "Turkish", "de_DE": "German"]
    for (locale, language) in locales {
      // Compiled into a folder of this test's own (LOCPATH): no system locale is needed.
      let made = Host.shell(
        "localedef -i \(locale) -f UTF-8 '\(folder.path)/\(locale).UTF-8'")
      #expect(made.status == 0, "localedef \(locale): \(made.output)")
      // Proof that the locale is really in force for a process given this environment.
      let identification = Host.shell(
        "LOCPATH='\(folder.path)' LC_ALL=\(locale).UTF-8 locale -k LC_IDENTIFICATION")
      #expect(identification.output.contains(language), "\(identification.output)")
      #expect(!identification.output.contains("Cannot set"))
    }

    func answers(_ environment: [String: String]) throws -> [String] {
      let sift = try SiftProcess()
      defer { sift.cleanup() }
      var lines: [String] = []
      for query in Self.queries {
        let run = try sift.run(
          ["filter", query], stdin: Data((Self.names + "\n").utf8), environment: environment)
        lines.append("\(query) → \(run.lines.joined(separator: " · "))")
      }
      for query in [["price:<17"], ["16.99"], ["year:2006..2007", "white"]] {
        let run = try sift.run(
          ["search", "--catalog", "products"] + query, environment: environment)
        lines.append(
          "\(query) → \(run.lines.map { $0.prefix { $0 != " " } }.joined(separator: " "))")
      }
      return lines
    }

    let baseline = try answers(["LC_ALL": "C", "LANG": "C"])
    #expect(
      baseline == [
        "istanbul → İstanbul", "diyarbakir → DIYARBAKIR", "IĞDIR → Iğdır", "ılıca → Ilıca",
        "da nang → Đà Nẵng", "ĐÀ NẴNG → Đà Nẵng", "strasse → Straße", "STRASSE → Straße",
        "arger → Ärger",
        "i → İstanbul · Iğdır · Ilıca · DIYARBAKIR",
        "[\"price:<17\"] → Orchid Geranium Daisy", "[\"16.99\"] → Orchid Geranium Daisy",
        "[\"year:2006..2007\", \"white\"] → Carnation",
      ])
    for locale in locales.keys.sorted() {
      let environment = [
        "LOCPATH": folder.path, "LC_ALL": "\(locale).UTF-8", "LANG": "\(locale).UTF-8",
        "LANGUAGE": String(locale.prefix(2)),
      ]
      #expect(try answers(environment) == baseline, "\(locale)")
    }
  }

  /// localedef comes with the `locales` Debian package, which `Scripts/setup-tests` installs.
  static func ensureLocaledef() throws {
    try Host.require(
      package: "locales", check: "command -v localedef && test -d /usr/share/i18n/locales")
  }
}
