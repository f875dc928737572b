/// An area of the earth between two parallels and two meridians (`sift search --within-box
/// SOUTH,WEST,NORTH,EAST`, `within_box=`): a map's "search this area". Only items whose place
/// is inside it (edges included) are kept. A box whose west edge is east of its east edge
/// crosses the 180° meridian: `-20,170,-10,-170` holds Fiji.
public struct GeoBox: Hashable, Sendable, CustomStringConvertible {
  public var south: Double
  public var west: Double
  public var north: Double
  public var east: Double

  /// - Throws: `GeoBoxError` for an edge off the earth, or a south edge north of the north.
  public init(south: Double, west: Double, north: Double, east: Double) throws(GeoBoxError) {
    for latitude in [south, north] where !(-90...90).contains(latitude) {
      throw .latitudeOutOfRange(latitude)
    }
    for longitude in [west, east] where !(-180...180).contains(longitude) {
      throw .longitudeOutOfRange(longitude)
    }
    guard south <= north else { throw .southOfNorth(south: south, north: north) }
    (self.south, self.west, self.north, self.east) = (south, west, north, east)
  }

  /// Reads `SOUTH,WEST,NORTH,EAST` in degrees.
  ///
  /// - Throws: `GeoBoxError` for anything else, naming what is wrong.
  public init(parsing text: String) throws(GeoBoxError) {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
      NumberText.parse(String($0).trimmingWhitespace())
    }
    guard parts.count == 4, let south = parts[0], let west = parts[1], let north = parts[2],
      let east = parts[3]
    else { throw .malformed(text) }
    try self.init(south: south, west: west, north: north, east: east)
  }

  /// Whether the box spans the 180° meridian (its west edge east of its east edge).
  public var crossesAntimeridian: Bool { west > east }

  /// Whether the point is inside the box, edges included.
  public func contains(latitude: Double, longitude: Double) -> Bool {
    guard south <= latitude, latitude <= north else { return false }
    return crossesAntimeridian
      ? longitude >= west || longitude <= east : west <= longitude && longitude <= east
  }

  /// The filters that keep the items inside the box, as token identifiers of the query
  /// language (`latitude:-34..-33`, `longitude:150.5..151.5`; across the 180° meridian
  /// `longitude:>=170 | longitude:<=-170`).
  public func filterIdentifiers(_ location: LocationFields) -> [String] {
    let (s, w, n, e) = (
      FieldValue.format(south), FieldValue.format(west), FieldValue.format(north),
      FieldValue.format(east)
    )
    let longitude =
      crossesAntimeridian
      ? "\(location.longitude):>=\(w) | \(location.longitude):<=\(e)"
      : "\(location.longitude):\(w)..\(e)"
    return ["\(location.latitude):\(s)..\(n)", longitude]
  }

  /// `SOUTH,WEST,NORTH,EAST`, as `init(parsing:)` reads it.
  public var description: String {
    [south, west, north, east].map(FieldValue.format).joined(separator: ",")
  }
}

/// Why a box could not be read.
public enum GeoBoxError: Error, Hashable, Sendable, CustomStringConvertible {
  case malformed(String)
  case latitudeOutOfRange(Double)
  case longitudeOutOfRange(Double)
  case southOfNorth(south: Double, north: Double)

  public var description: String {
    switch self {
    case .malformed(let text):
      "\"\(text)\" is not SOUTH,WEST,NORTH,EAST (four numbers in degrees, e.g. 45.7,5.9,47.8,10.5)"
    case .latitudeOutOfRange(let value):
      "latitude \(FieldValue.format(value)) is outside -90…90"
    case .longitudeOutOfRange(let value):
      "longitude \(FieldValue.format(value)) is outside -180…180"
    case .southOfNorth(let south, let north):
      "the south edge \(FieldValue.format(south)) is north of the north edge \(FieldValue.format(north))"
    }
  }
}

extension SearchCriteria {
  /// Keeps only the items inside `box` (nil: anywhere), through the base filter
  /// (`GeoBox.filterIdentifiers(_:)`), as a tenant's rows are kept: never one of the searcher's
  /// tokens. A catalog without a location has nothing to keep by.
  mutating func keepInside(_ box: GeoBox?, location: LocationFields?) {
    guard let box, let location else { return }
    base += box.filterIdentifiers(location).map { SearchToken(text: $0, identifier: $0) }
  }
}
