import Foundation

/// A place on the earth in degrees: where "near me" is, or where an item is
/// (`CatalogSchema.location`).
public struct GeoPoint: Hashable, Sendable, CustomStringConvertible {
  public var latitude: Double
  public var longitude: Double

  /// - Throws: `GeoPointError` for a latitude outside ±90, a longitude outside ±180 or a value
  ///   that is not a finite number.
  public init(latitude: Double, longitude: Double) throws(GeoPointError) {
    guard latitude.isFinite, (-90...90).contains(latitude) else {
      throw .latitudeOutOfRange(latitude)
    }
    guard longitude.isFinite, (-180...180).contains(longitude) else {
      throw .longitudeOutOfRange(longitude)
    }
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Reads `LAT,LON` (`--near 39.78,-89.65`, `near=39.78,-89.65`): two decimal numbers, spaces
  /// allowed around them.
  public init(parsing text: String) throws(GeoPointError) {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2,
      let latitude = Double(parts[0].trimmingCharacters(in: .whitespaces)),
      let longitude = Double(parts[1].trimmingCharacters(in: .whitespaces))
    else { throw .malformed(text) }
    try self.init(latitude: latitude, longitude: longitude)
  }

  /// `39.78,-89.65`, as `init(parsing:)` reads it.
  public var description: String {
    "\(FieldValue.format(latitude)),\(FieldValue.format(longitude))"
  }

  /// The earth's mean radius in metres, the sphere every distance is measured on.
  public static let earthRadius = 6_371_000.0

  /// Degrees to radians.
  static let radiansPerDegree = Double.pi / 180

  /// The great-circle distance in whole metres (rounded down) to the point at `latitude`,
  /// `longitude` (haversine). Whole metres are what results are ordered and filtered by, so a
  /// last bit that differs between two machines' sines cannot reorder results a metre apart.
  package func meters(toLatitude latitude: Double, longitude: Double) -> Int {
    distances.meters(toLatitude: latitude, longitude: longitude)
  }

  /// Distances from this point, with what does not depend on the other point worked out once.
  package var distances: Distances { Distances(self) }

  /// `GeoPoint.meters(toLatitude:longitude:)` from one point to many: the cosine of its
  /// latitude computed once (the same value each time, so the same metres).
  package struct Distances: Hashable, Sendable {
    let point: GeoPoint
    let cosineOfLatitude: Double

    init(_ point: GeoPoint) {
      self.point = point
      cosineOfLatitude = cos(point.latitude * GeoPoint.radiansPerDegree)
    }

    @inline(__always)
    package func meters(toLatitude latitude: Double, longitude: Double) -> Int {
      let k = GeoPoint.radiansPerDegree
      let halfLatitude = sin((latitude - point.latitude) * k / 2)
      let halfLongitude = sin((longitude - point.longitude) * k / 2)
      let a =
        halfLatitude * halfLatitude + cosineOfLatitude * cos(latitude * k) * halfLongitude
        * halfLongitude
      // To the nearest metre (half up): 22,592.7 m is 22.593 km, not 22.592.
      return Int((2 * GeoPoint.earthRadius * asin(min(1, sqrt(a))) + 0.5).rounded(.down))
    }
  }

  /// The great-circle distance to `other` in kilometres, to the metre.
  public func kilometers(to other: GeoPoint) -> Double {
    Double(meters(toLatitude: other.latitude, longitude: other.longitude)) / 1000
  }
}

/// Why a point cannot be read; the description names what is wrong.
public enum GeoPointError: Error, Hashable, Sendable, CustomStringConvertible {
  case malformed(String)
  case latitudeOutOfRange(Double)
  case longitudeOutOfRange(Double)
  case malformedRadius(String)

  public var description: String {
    switch self {
    case .malformed(let text):
      "\"\(text)\" is not LAT,LON (two decimal numbers, e.g. 39.78,-89.65)"
    case .latitudeOutOfRange(let value):
      "latitude \(FieldValue.format(value)) is outside -90…90"
    case .longitudeOutOfRange(let value):
      "longitude \(FieldValue.format(value)) is outside -180…180"
    case .malformedRadius(let text):
      "\"\(text)\" is not a radius in kilometres (a number, 0 or more)"
    }
  }
}

/// The two number fields that place a catalog's items on the earth
/// (`sift import --location lat,lon`): what `--near` measures distances from.
public struct LocationFields: Hashable, Sendable, Codable, CustomStringConvertible {
  public var latitude: String
  public var longitude: String

  public init(latitude: String, longitude: String) {
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Reads `LAT_FIELD,LON_FIELD` (the command line's `--location`); nil unless two non-empty
  /// names.
  public init?(parsing text: String) {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, parts[0] != parts[1] else {
      return nil
    }
    self.init(latitude: parts[0], longitude: parts[1])
  }

  /// `lat,lon`, as `init(parsing:)` reads it.
  public var description: String { "\(latitude),\(longitude)" }
}

/// Results near a place (`sift search --near LAT,LON --within KM`): distance ranks them right
/// after typos, word starts and a title match — "spring" near Illinois finds Springfield,
/// Illinois first — and with a
/// radius only items within it are kept. Each result says how far it is.
public struct SearchNear: Hashable, Sendable {
  public var point: GeoPoint
  /// Keep only items at most this many kilometres away; nil keeps every item (one without a
  /// location comes last).
  public var withinKilometers: Double?

  public init(_ point: GeoPoint, withinKilometers: Double? = nil) {
    self.point = point
    self.withinKilometers = withinKilometers
  }

  /// The radius in whole metres, as items are kept by (`GeoPoint.meters`).
  package var withinMeters: Int? {
    withinKilometers.map { Int(($0 * 1000).rounded(.down)) }
  }

  /// Reads a radius in kilometres (`--within 50`, `within=50`).
  ///
  /// - Throws: `GeoPointError.malformedRadius` unless a finite number of zero or more.
  public static func kilometers(parsing text: String) throws(GeoPointError) -> Double {
    guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite,
      value >= 0
    else { throw .malformedRadius(text) }
    return value
  }
}

extension CatalogSchema {
  /// Where `item` is, from the catalog's location fields; nil without a location or a value
  /// within the earth's ranges.
  public func point(of item: Item) -> GeoPoint? {
    guard let location,
      let latitude = item[location.latitude].indexedNumber,
      let longitude = item[location.longitude].indexedNumber
    else { return nil }
    return try? GeoPoint(latitude: latitude, longitude: longitude)
  }

  /// How far `item` is from the place asked for, in kilometres to the metre (what results and
  /// `distance_km` show); nil without a place or a location.
  public func kilometers(of item: Item, from near: SearchNear?) -> Double? {
    guard let near, let point = point(of: item) else { return nil }
    return near.point.kilometers(to: point)
  }
}

extension LocationFields {
  /// The first coordinate among `fields` that is off the earth — a latitude outside ±90, a
  /// longitude outside ±180 — with what is wrong ("a latitude, from -90 to 90, not 91"): the
  /// one rule of imports, edits over HTTP and the app's form. Nil when both are fine or absent.
  public func problem(in fields: [String: FieldValue]) -> (field: String, reason: String)? {
    for (name, kind, limit) in [(latitude, "latitude", 90.0), (longitude, "longitude", 180.0)] {
      guard case .number(let value) = fields[name], !(abs(value) <= limit) else { continue }
      return (
        name, "a \(kind), from -\(Int(limit)) to \(Int(limit)), not \(FieldValue.format(value))"
      )
    }
    return nil
  }
}
