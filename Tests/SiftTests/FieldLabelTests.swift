import Foundation
import SiftTestSupport
import Testing

@testable import Sift

/// A field nobody labelled reads as words, in every front end: the schema carries the label.
@Suite("Field labels", .tags(.unit))
struct FieldLabelTests {
  @Test(
    "a name reads as words",
    arguments: [
      ("primary_breed", "Primary breed"), ("avgRating", "Avg rating"), ("userID", "User ID"),
      ("HTMLTitle", "HTML title"), ("first-name", "First name"), ("geo.lat", "Geo lat"),
      ("alpha_3", "Alpha 3"), ("price", "Price"), ("ISBN", "ISBN"), ("URL", "URL"),
      ("x", "X"), ("__id", "Id"), ("Year_Introduced", "Year introduced"),
      ("straße_name", "Straße name"), ("名前", "名前"), ("_", "_"), ("mp3Player", "Mp3 player"),
    ])
  func words(name: String, label: String) {
    #expect(FieldDefinition.words(of: name) == label)
    #expect(FieldDefinition.text(name).label == label)
    #expect(CatalogSchema(name: name, fields: [], titleField: "t").title == label)
  }

  @Test("a label given is kept as given")
  func given() {
    #expect(FieldDefinition.number("avg_rating", label: "Stars").label == "Stars")
    #expect(FieldDefinition.number("avg_rating", label: "avg_rating").label == "avg_rating")
  }

  /// Catalogs saved before labels were words hold "Primary_breed": it was never given.
  @Test("a saved label that is only the name with a capital reads as words; any other is kept")
  func saved() throws {
    func decoded(_ json: String) throws -> String {
      try JSONDecoder().decode(FieldDefinition.self, from: Data(json.utf8)).label
    }
    #expect(
      try decoded(#"{"name":"primary_breed","label":"Primary_breed","kind":"text"}"#)
        == "Primary breed")
    #expect(try decoded(#"{"name":"avg_rating","label":"Stars","kind":"number"}"#) == "Stars")
    #expect(try decoded(#"{"name":"avgRating","kind":"number"}"#) == "Avg rating")
    let field = FieldDefinition.text("primary_breed")
    let again = try JSONDecoder().decode(
      FieldDefinition.self, from: try JSONEncoder().encode(field))
    #expect(again == field)
  }
}
