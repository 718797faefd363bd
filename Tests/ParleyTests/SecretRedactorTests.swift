import Foundation
import Logging
import Parley
import Testing

@Suite struct SecretRedactorTests {
    @Test(arguments: [
        (#"{"method":"login","params":{"login":"alice","passwd":"hunter2","sessid":"s"}}"#, "hunter2"),
        (#"{"params":{"login_token" : "eyJhbGciOi.payload.sig"}}"#, "eyJhbGciOi.payload.sig"),
        (#"{"passwd":"with \"quotes\" inside"}"#, #"with \"quotes\" inside"#),
        ("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=ice-ufrag:abcd\r\na=ice-pwd:s3cr3tIcePasswordValue123\r\n", "s3cr3tIcePasswordValue123"),
        (#"{"sdp":"v=0\r\na=ice-pwd:s3cr3tIcePasswordValue123\r\na=mid:0"}"#, "s3cr3tIcePasswordValue123"),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4", "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"),
        ("turn:alice:turnsecret@turn.example.org:3478", "turnsecret"),
        (#"{"credential":"turn-credential-value","username":"u"}"#, "turn-credential-value"),
    ])
    func secretsAreRemoved(text: String, secret: String) {
        let redacted = SecretRedactor.redact(text)
        #expect(!redacted.contains(secret), "\(redacted)")
        #expect(redacted.contains(SecretRedactor.mask))
    }

    @Test func ordinaryTextIsUntouched() {
        let text = #"{"method":"telnyx_rtc.invite","params":{"dialogParams":{"callID":"abc","destination_number":"+15550100"}}} a=ice-ufrag:abcd"#
        #expect(SecretRedactor.redact(text) == text)
    }

    @Test func logFileIsNDJSONWithSecretsRedacted() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-log-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try LogOutput(level: .debug, filePath: path, humanToStandardError: false)
        let logger = Logger(label: "parley.test") { output.handler(label: $0) }
        logger.debug("sent frame", metadata: ["frame": #"{"passwd":"hunter2"}"#])
        logger.trace("below the level")
        logger.error("ICE: a=ice-pwd:s3cr3tIcePasswordValue123")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            #expect(object["logger"] == "parley.test")
            #expect(object["ts"] != nil)
            #expect(!line.contains("hunter2") && !line.contains("s3cr3t"))
        }
    }
}
