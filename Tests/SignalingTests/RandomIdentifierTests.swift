import Foundation
@testable import Signaling
import Testing

struct RandomIdentifierTests {
    @Test func identifiersAreVersionFourUUIDsAndDistinct() throws {
        let ids = (0..<1000).map { _ in RandomIdentifier.uuid() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(50) {
            let uuid = try #require(UUID(uuidString: id))
            #expect(uuid.uuidString.lowercased() == id)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4, "version 4")
            #expect(bytes[8] >> 6 == 0b10, "RFC 9562 variant")
        }
    }
}
