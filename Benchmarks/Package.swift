// swift-tools-version: 6.1
// Benchmarks live in their own package so the main build and `swift test` never wait for them.
import PackageDescription

let package = Package(
  name: "SiftBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "Sift", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // The approach of the seed tutorials, for comparison: filter an array of strings per query.
    .executableTarget(name: "seed-approach", path: "Sources/seed-approach"),
    .executableTarget(
      name: "EngineBenchmarks",
      dependencies: [
        .product(name: "Sift", package: "Sift"),
        .product(name: "SiftLines", package: "Sift"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/EngineBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
