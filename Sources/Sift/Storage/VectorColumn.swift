/// Every slot's vector in one contiguous buffer, `dimensions` floats a slot, each scaled to
/// length 1 when it is stored, so that the cosine of two vectors is their dot product: a search
/// by meaning reads the buffer once, front to back, eight lanes at a time.
///
/// A slot without a vector holds NaN in its first lane (an item may have none; a vector of
/// zeros is refused where items come in, so no stored vector starts with NaN).
struct VectorColumn: Sendable {
  let dimensions: Int
  private(set) var values: IndexBuffer<Float>

  init(dimensions: Int, values: IndexBuffer<Float> = []) {
    self.dimensions = dimensions
    self.values = values
  }

  var slotCount: Int { dimensions == 0 ? 0 : values.count / dimensions }

  /// Appends a slot's vector (scaled to length 1), or a slot without one — also for a vector
  /// of another length, which the doors that take items refuse before it gets here.
  mutating func append(_ vector: [Float]?) {
    if let vector, vector.count == dimensions {
      values.append(contentsOf: VectorField.unit(vector))
    } else {
      values.append(.nan)
      values.append(contentsOf: repeatElement(0, count: dimensions - 1))
    }
  }

  /// Whether `slot` holds a vector.
  @inline(__always)
  func hasVector(_ slot: Int) -> Bool { !values[slot * dimensions].isNaN }

  /// The slots of `keep`, in that order (a compaction).
  func compacted(keeping keep: [Int]) -> VectorColumn {
    var kept: [Float] = []
    kept.reserveCapacity(keep.count * dimensions)
    values.withUnsafeBufferPointer { values in
      for slot in keep {
        kept.append(contentsOf: values[slot * dimensions..<(slot + 1) * dimensions])
      }
    }
    return VectorColumn(dimensions: dimensions, values: IndexBuffer(kept))
  }

  /// The stored (unit) vector of `slot`; nil when it has none.
  func vector(of slot: Int) -> [Float]? {
    guard hasVector(slot) else { return nil }
    return values.withUnsafeBufferPointer { Array($0[slot * dimensions..<(slot + 1) * dimensions]) }
  }

  /// Calls `body` with each of `slots` that holds a vector and its cosine similarity to
  /// `query` (a unit vector of `dimensions` floats).
  ///
  /// - Complexity: O(*k* · *d*): one pass over the slots' vectors, eight lanes at a time.
  func forEachSimilarity(
    of slots: some Sequence<Int32>, to query: [Float], _ body: (Int32, Float) -> Void
  ) {
    precondition(query.count == dimensions, "a query vector of another length")
    values.withUnsafeBufferPointer { values in
      query.withUnsafeBufferPointer { query in
        guard let base = values.baseAddress, let q = query.baseAddress else { return }
        for slot in slots {
          let start = base + Int(slot) * dimensions
          guard !start.pointee.isNaN else { continue }
          body(slot, Self.dot(start, q, count: dimensions))
        }
      }
    }
  }

  /// The dot product of `count` floats at `a` and `b`: eight lanes at a time, in two
  /// accumulators so that one addition need not wait for the last.
  @inline(__always)
  static func dot(
    _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int
  ) -> Float {
    var first = SIMD8<Float>()
    var second = SIMD8<Float>()
    var index = 0
    let raw = (UnsafeRawPointer(a), UnsafeRawPointer(b))
    while index + 16 <= count {
      let offset = index * MemoryLayout<Float>.stride
      first +=
        raw.0.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
        * raw.1.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      second +=
        raw.0.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
        * raw.1.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
      index += 16
    }
    while index + 8 <= count {
      let offset = index * MemoryLayout<Float>.stride
      first +=
        raw.0.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
        * raw.1.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      index += 8
    }
    var sum = (first + second).sum()
    while index < count {
      sum += a[index] * b[index]
      index += 1
    }
    return sum
  }
}
