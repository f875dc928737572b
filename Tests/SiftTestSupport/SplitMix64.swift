/// A small seeded generator, so every random test case can be reproduced from its seed. It
/// prints the seed and where it was made, so a failure's log says how to replay it.
public struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  public init(seed: UInt64, fileID: String = #fileID, line: Int = #line) {
    print("seed \(seed) (\(fileID):\(line))")
    state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
