@testable import CLI
import Foundation
import Testing

/// Every `*-file` secret reads the same from a file saved on Windows (CR LF) as on Linux (LF)
/// (issue 30, item 5).
@Suite struct SecretFileTests {
    private func file(_ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parley-secret-\(UUID().uuidString)").path
        try #require(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)))
        return path
    }

    @Test(arguments: ["alicepw\r\n", "alicepw\n", "alicepw", "alicepw\r\nsecond line\r\n"])
    func oneLineEndingIsStripped(contents: String) throws {
        let path = try file(contents)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try SecretFile.read(path, flag: "--password-file") == "alicepw")
    }

    @Test func onlyOneLineEndingIsStripped() throws {
        let path = try file("pw \r\r\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try SecretFile.read(path, flag: "--token-file") == "pw \r")
    }

    @Test func usersFileWithCRLF() throws {
        let path = try file("# accounts\r\nalice:alicepw\r\nbob:bobpw\r\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let accounts = try UsersFile.load(path)
        #expect(accounts.map(\.login) == ["alice", "bob"])
        #expect(accounts.map(\.password) == ["alicepw", "bobpw"])
    }
}
