/// Every slot's vector in one contiguous buffer, `dimensions` floats a slot, each scaled to
/// length 1 when it is stored, so that the cosine of two vectors is their dot product.
///
/// Beside it, each vector in a quarter of the bytes: one signed byte a lane (`codes`), times
/// the slot's scale, with a bound on how far that copy's dot product with any unit vector can
/// be from the exact one (`scales`: scale, bound). A search reads the bytes of every
/// candidate, and the floats only of those the bound cannot rule out (`SearchIndex.nearest`):
/// exact answers from a quarter of the memory traffic, and, read from an archive, the floats
/// of most slots never touched.
///
/// A slot without a vector holds NaN in its first lane and its scale (an item may have none;
/// a vector of zeros is refused where items come in, so no stored vector starts with NaN).
struct VectorColumn: Sendable {
  let dimensions: Int
  private(set) var values: IndexBuffer<Float>
  private(set) var codes: IndexBuffer<Int8>
  /// Two a slot: the scale of its codes and the bound of their dot product's error.
  private(set) var scales: IndexBuffer<Float>

  init(dimensions: Int) {
    self.dimensions = dimensions
    values = []
    codes = []
    scales = []
  }

  /// A column read back (an archive): nil when the buffers do not hold `slotCount` slots.
  init?(
    dimensions: Int, slotCount: Int, values: IndexBuffer<Float>, codes: IndexBuffer<Int8>,
    scales: IndexBuffer<Float>
  ) {
    guard dimensions > 0, values.count == slotCount * dimensions,
      codes.count == slotCount * dimensions, scales.count == 2 * slotCount
    else { return nil }
    self.dimensions = dimensions
    self.values = values
    self.codes = codes
    self.scales = scales
  }

  var slotCount: Int { dimensions == 0 ? 0 : values.count / dimensions }

  /// Appends a slot's vector (scaled to length 1), or a slot without one — also for a vector
  /// of another length, which the doors that take items refuse before it gets here.
  mutating func append(_ vector: [Float]?) {
    if let vector, vector.count == dimensions {
      let unit = VectorField.unit(vector)
      values.append(contentsOf: unit)
      let (bytes, scale, bound) = Self.quantized(unit)
      codes.append(contentsOf: bytes)
      scales.append(contentsOf: [scale, bound])
    } else {
      values.append(.nan)
      values.append(contentsOf: repeatElement(0, count: dimensions - 1))
      codes.append(contentsOf: repeatElement(0, count: dimensions))
      scales.append(contentsOf: [.nan, .infinity])
    }
  }

  /// A unit vector as one signed byte a lane times a scale (the largest lane is ±127), and
  /// the bound on the error of its dot product with a unit vector `q`: by Cauchy–Schwarz
  /// `|q · (x − x̂)| ≤ |x − x̂|`, plus the rounding of two float sums of `dimensions` terms.
  static func quantized(_ unit: [Float]) -> (codes: [Int8], scale: Float, bound: Float) {
    let largest = unit.reduce(Float(0)) { max($0, abs($1)) }
    let scale = largest > 0 ? largest / 127 : 1
    var codes: [Int8] = []
    codes.reserveCapacity(unit.count)
    var error = 0.0
    for value in unit {
      let code = Int8(max(-127, min(127, (value / scale).rounded())))
      codes.append(code)
      let difference = Double(value) - Double(scale) * Double(code)
      error += difference * difference
    }
    let rounding = 4 * Double(unit.count) * Double(Float.ulpOfOne)
    return (codes, scale, Float(error.squareRoot() + rounding).nextUp)
  }

  /// Whether `slot` holds a vector.
  @inline(__always)
  func hasVector(_ slot: Int) -> Bool { !values[slot * dimensions].isNaN }

  /// The slots of `keep`, in that order (a compaction).
  func compacted(keeping keep: [Int]) -> VectorColumn {
    func kept<T>(_ buffer: IndexBuffer<T>, width: Int) -> IndexBuffer<T> {
      var kept: [T] = []
      kept.reserveCapacity(keep.count * width)
      buffer.withUnsafeBufferPointer { buffer in
        for slot in keep { kept.append(contentsOf: buffer[slot * width..<(slot + 1) * width]) }
      }
      return IndexBuffer(kept)
    }
    var column = VectorColumn(dimensions: dimensions)
    column.values = kept(values, width: dimensions)
    column.codes = kept(codes, width: dimensions)
    column.scales = kept(scales, width: 2)
    return column
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

  /// Calls `body` with the offset in `slots` of each one that holds a vector, and the least
  /// and the most its cosine similarity to `query` (a unit vector) can be, from its bytes.
  ///
  /// - Complexity: O(*k* · *d*) bytes read, sixteen lanes at a time.
  func forEachSimilarityBounds(
    of slots: ArraySlice<Int32>, to query: [Float], _ body: (Int, Float, Float) -> Void
  ) {
    precondition(query.count == dimensions, "a query vector of another length")
    codes.withUnsafeBufferPointer { codes in
      scales.withUnsafeBufferPointer { scales in
        query.withUnsafeBufferPointer { query in
          guard let base = codes.baseAddress, let q = query.baseAddress else { return }
          for (offset, slot) in zip(slots.indices, slots) {
            let scale = scales[2 * Int(slot)]
            guard !scale.isNaN else { continue }
            let estimate = scale * Self.dot(base + Int(slot) * dimensions, q, count: dimensions)
            let bound = scales[2 * Int(slot) + 1]
            body(offset, estimate - bound, estimate + bound)
          }
        }
      }
    }
  }

  /// The dot product of `count` signed bytes at `a` and floats at `b`, sixteen lanes at a
  /// time.
  @inline(__always)
  static func dot(_ a: UnsafePointer<Int8>, _ b: UnsafePointer<Float>, count: Int) -> Float {
    var first = SIMD8<Float>()
    var second = SIMD8<Float>()
    var index = 0
    let raw = (UnsafeRawPointer(a), UnsafeRawPointer(b))
    while index + 16 <= count {
      let bytes = raw.0.loadUnaligned(fromByteOffset: index, as: SIMD16<Int8>.self)
      let offset = index * MemoryLayout<Float>.stride
      first +=
        SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: bytes.lowHalf))
        * raw.1.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
      second +=
        SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: bytes.highHalf))
        * raw.1.loadUnaligned(fromByteOffset: offset + 32, as: SIMD8<Float>.self)
      index += 16
    }
    var sum = (first + second).sum()
    while index < count {
      sum += Float(a[index]) * b[index]
      index += 1
    }
    return sum
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
