// swift-tools-version: 6.1
import PackageDescription

#if canImport(Glibc)
import Glibc
#endif

/// How the `sift` command is linked in release builds on Linux. It exports no symbols, since it
/// loads no plug-ins (the static Swift library's link flags export every one of the program's
/// own 45,000, whose tables the loader then reads at each start), and lld packs its 134,000
/// relative relocations into a table of 26 KB instead of 3 MB — but only where glibc reads packed
/// ones (2.36 and later; an older one would refuse the program). Together: 4.8 MB less memory
/// and a faster start for every `sift` process (Benchmarks/README.md, issue 28). The flags are
/// the command's alone: SwiftPM refuses unsafe flags only in the products a dependent uses, so an
/// app that depends on the `Sift` library is not affected.
let commandLinkerSettings: [LinkerSetting] = {
  var flags = ["-Xlinker", "--no-export-dynamic"]
  if let version = glibcVersion(), !version.lexicographicallyPrecedes([2, 36]) {
    flags += ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
  }
  return [.unsafeFlags(flags, .when(platforms: [.linux], configuration: .release))]
}()

/// The version of the C library this manifest runs on, when it is glibc ([2, 36]).
func glibcVersion() -> [Int]? {
  #if canImport(Glibc)
  var text = [CChar](repeating: 0, count: 64)
  guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return nil }
  let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
  let words = String(decoding: bytes, as: UTF8.self).split(separator: " ")
  guard words.first == "glibc", let number = words.last else { return nil }
  return number.split(separator: ".").compactMap { Int($0) }
  #else
  return nil
  #endif
}

let package = Package(
  name: "Sift",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "Sift", targets: ["Sift"]),
    .library(name: "SiftLines", targets: ["SiftLines"]),
    .library(name: "SiftStore", targets: ["SiftStore"]),
    .library(name: "SiftTerminal", targets: ["SiftTerminal"]),
    .executable(name: "sift", targets: ["sift"]),
  ],
  // What a build brings besides the engine. An app that depends on the `Sift` library writes
  // `traits: []` and resolves no other package; `swift run sift` builds the default, the
  // command line and the terminal app; `--traits Server` adds `sift serve` and PostgreSQL.
  traits: [
    .trait(
      name: "Store", description: "Catalogs kept in SQLite files, and import (GRDB)."),
    .trait(
      name: "Command",
      description: "The sift command and its terminal app (swift-argument-parser).",
      enabledTraits: ["Store"]),
    .trait(
      name: "Server",
      description: "sift serve and catalogs in PostgreSQL (Hummingbird, postgres-nio).",
      enabledTraits: ["Command"]),
    .default(enabledTraits: ["Command"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
  ],
  targets: [
    // The engine: folding, query language, index and matcher, SearchController, FilteredCollection.
    // Foundation only, so an iOS or macOS app can use it unchanged.
    .target(name: "Sift"),
    // `sift filter`'s line matcher (fzf's job): the engine's folding and query language over
    // lines of text, without a catalog.
    .target(name: "SiftLines", dependencies: ["Sift"]),
    // Catalogs on disk and the built-in sample catalogs.
    .target(
      name: "SiftStore",
      dependencies: [
        "CHeapUsage",
        "Sift",
        .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Store"])),
        .product(name: "GRDBSQLite", package: "GRDB.swift", condition: .when(traits: ["Store"])),
        .target(name: "CCurlLoader", condition: .when(platforms: [.linux])),
      ],
      resources: [.copy("BuiltIn/Catalogs")]
    ),
    // `CatalogSync`'s requests on Linux: the system's libcurl, loaded on the first request, so
    // that no other `sift` command loads it (Apple's platforms use URLSession).
    .target(
      name: "CCurlLoader",
      linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
    // Catalogs in PostgreSQL: the truth and the order of changes, followed by nodes that
    // search a local copy in memory (`PostgresNode`, a SiftStore catalog).
    .target(
      name: "SiftPostgres",
      dependencies: [
        "Sift", "SiftStore",
        .product(
          name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Server"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
      ]
    ),
    // The terminal front end: a pure screen model plus thin terminal I/O.
    .target(name: "SiftTerminal", dependencies: ["Sift"]),
    // The HTTP front end (`sift serve`): the same searches as JSON, edits, and a search page.
    .target(
      name: "SiftServer",
      dependencies: [
        "Sift",
        .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Server"])),
        // The connection limits: an idle timeout (NIOCore's TimeAmount) and a cap on
        // connections (HummingbirdCore's MaximumAvailableConnections).
        .product(
          name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Server"])),
        .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Server"])),
        // What the HTTP parser could not read, answered in JSON.
        .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Server"])),
        // The request deadline's timer, on the event loops the server runs on.
        .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Server"])),
        // The request parts a connection's header deadline watches.
        .product(
          name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["Server"])),
        // The conversion of HTTP/1 requests, ahead of which an HTTP/1.0 request's version is read.
        .product(
          name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras",
          condition: .when(traits: ["Server"])),
        // HTTPS (`--tls-cert`, `--tls-key`).
        .product(
          name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["Server"])),
        .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Server"])),
        // Keys kept as SHA-256 hashes; tenant tokens signed with HMAC-SHA256.
        .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Server"])),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Server"])),
        .product(
          name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
      ],
      resources: [
        .embedInCode("Page/index.html"), .embedInCode("Page/page.js"),
        .embedInCode("Page/page.css"), .embedInCode("Page/openapi.json"),
      ]
    ),
    // What `sift bench` reads of the C allocator (glibc's mallinfo2, not exposed to Swift), and
    // how an import hands it back what it freed (malloc_trim).
    .target(name: "CHeapUsage"),
    // The command-line tool: a thin shell over the libraries.
    .executableTarget(
      name: "sift",
      dependencies: [
        "Sift", "SiftLines", "SiftStore", "SiftTerminal", "CHeapUsage",
        .target(name: "SiftPostgres", condition: .when(traits: ["Server"])),
        .target(name: "SiftServer", condition: .when(traits: ["Server"])),
        .product(
          name: "ArgumentParser", package: "swift-argument-parser",
          condition: .when(traits: ["Command"])),
      ],
      linkerSettings: commandLinkerSettings
    ),
    // The seed catalogs for the engine's and the terminal's tests, without SiftStore.
    .target(name: "SiftTestSupport", dependencies: ["Sift"], path: "Tests/SiftTestSupport"),
    .testTarget(name: "SiftTests", dependencies: ["Sift", "SiftTestSupport"]),
    .testTarget(name: "SiftLinesTests", dependencies: ["SiftLines", "Sift", "SiftTestSupport"]),
    .testTarget(
      name: "SiftStoreTests",
      dependencies: [
        "SiftStore", "SiftTestSupport",
        .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Store"])),
      ]
    ),
    .testTarget(
      name: "SiftTerminalTests", dependencies: ["SiftTerminal", "Sift", "SiftTestSupport"]),
    .testTarget(
      name: "SiftServerTests",
      dependencies: [
        "SiftServer", "SiftStore", "Sift", "SiftTestSupport",
        .product(
          name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
        .product(
          name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Server"])),
        .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Server"])),
      ]
    ),
    .testTarget(
      name: "SiftPostgresTests",
      dependencies: [
        "SiftPostgres", "SiftStore", "Sift", "SiftServer", "SiftTestSupport",
        .product(
          name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Server"])),
      ]
    ),
    .testTarget(name: "SiftEndToEndTests", dependencies: ["sift", "Sift", "SiftTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
