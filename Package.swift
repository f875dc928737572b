// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Sift",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "Sift", targets: ["Sift"]),
    .library(name: "SiftStore", targets: ["SiftStore"]),
    .library(name: "SiftTerminal", targets: ["SiftTerminal"]),
    .library(name: "SiftServer", targets: ["SiftServer"]),
    .executable(name: "sift", targets: ["sift"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
  ],
  targets: [
    // The engine: folding, query language, index and matcher, SearchController, FilteredCollection.
    // Foundation only, so an iOS or macOS app can use it unchanged.
    .target(name: "Sift"),
    // Catalogs on disk and the built-in sample catalogs.
    .target(
      name: "SiftStore",
      dependencies: [
        "Sift",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "CSV", package: "CSV.swift"),
      ],
      resources: [.copy("BuiltIn/Catalogs")]
    ),
    // Catalogs in PostgreSQL: Sift's folded text in columns beside the items, queries compiled
    // to SQL with the embedded engine's results.
    .target(
      name: "SiftPostgres",
      dependencies: [
        "Sift", "SiftStore", .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The terminal front end: a pure screen model plus thin terminal I/O.
    .target(name: "SiftTerminal", dependencies: ["Sift"]),
    // The HTTP front end (`sift serve`): the same searches as JSON, edits, and a search page.
    .target(
      name: "SiftServer",
      dependencies: [
        "Sift", "SiftStore", "SiftPostgres", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      resources: [
        .embedInCode("Page/index.html"), .embedInCode("Page/page.js"),
        .embedInCode("Page/page.css"),
      ]
    ),
    // What `sift bench` reads of the C allocator (glibc's mallinfo2, not exposed to Swift).
    .target(name: "CHeapUsage"),
    // The command-line tool: a thin shell over the libraries.
    .executableTarget(
      name: "sift",
      dependencies: [
        "Sift", "SiftStore", "SiftPostgres", "SiftTerminal", "SiftServer", "CHeapUsage",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // The seed catalogs for the engine's and the terminal's tests, without SiftStore.
    .target(name: "SiftTestSupport", dependencies: ["Sift"], path: "Tests/SiftTestSupport"),
    .testTarget(name: "SiftTests", dependencies: ["Sift", "SiftTestSupport"]),
    .testTarget(
      name: "SiftStoreTests",
      dependencies: ["SiftStore", "SiftTestSupport", .product(name: "GRDB", package: "GRDB.swift")]
    ),
    .testTarget(
      name: "SiftTerminalTests", dependencies: ["SiftTerminal", "Sift", "SiftTestSupport"]),
    .testTarget(
      name: "SiftServerTests",
      dependencies: [
        "SiftServer", "SiftStore", "Sift", "SiftTestSupport",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ]
    ),
    .testTarget(
      name: "SiftPostgresTests",
      dependencies: [
        "SiftPostgres", "SiftStore", "Sift", "SiftServer", "SiftTestSupport",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ]
    ),
    .testTarget(name: "SiftEndToEndTests", dependencies: ["sift", "SiftTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
