import Foundation

public enum BuiltProducts {
    /// `parley`, built beside the test bundle (`swift build --build-tests` makes both).
    public static var parley: String? {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directory = bundle.bundleURL.deletingLastPathComponent()
        }
        let path = directory.appendingPathComponent("parley").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
