/// Local ICE credentials (RFC 8839 §5.4): a 16-character ufrag and a 32-character password from
/// the system CSPRNG, in `ice-char`s.
package struct ICECredentials: Sendable, Equatable {
    package let ufrag: String
    /// A secret: never logged.
    package let password: String

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")

    package static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        return ICECredentials(ufrag: randomText(16, using: &generator), password: randomText(32, using: &generator))
    }

    private static func randomText(_ count: Int, using generator: inout SystemRandomNumberGenerator) -> String {
        String((0..<count).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
