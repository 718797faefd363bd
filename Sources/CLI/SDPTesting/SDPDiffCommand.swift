import ArgumentParser
import Foundation
import SDP

struct SDPDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two SDPs by structure: session lines, each m-line, codecs, attributes.",
        discussion: """
            Codecs are matched by name, so a renumbered codec shows as one change; the order of \
            candidates and other repeated lines, and CRLF against LF, are not differences. \
            Exit status 0 when the two are the same, 1 when they differ, 2 for invalid SDP.
            """
    )

    @Argument(help: "The first SDP (the old one), or - for standard input.")
    var old: String

    @Argument(help: "The second SDP (the new one).")
    var new: String

    @Flag(help: "Print one JSON object on standard output.")
    var json = false

    func run() throws {
        let diff = SDPDiff(from: try SDPInput(path: old, json: json).load(), to: try SDPInput(path: new, json: json).load()).redacted()
        if json {
            JSONEvents.emit("sdp-diff", DiffPayload(old: old, new: new, identical: diff.isEmpty, diff: diff))
        } else {
            print(SDPDiffText.render(diff), terminator: "")
        }
        if !diff.isEmpty { throw ExitCode(1) }
    }
}

private struct DiffPayload: Encodable {
    let old: String
    let new: String
    let identical: Bool
    let diff: SDPDiff
}

/// The human form of an `SDPDiff`: one heading per part, one line per change.
enum SDPDiffText {
    static func render(_ diff: SDPDiff) -> String {
        guard !diff.isEmpty else { return "no structural difference\n" }
        var out: [String] = []
        if !diff.session.isEmpty {
            out.append("session")
            out += diff.session.flatMap(lines)
        }
        for media in diff.media {
            let status = media.status == .changed ? "" : " \(media.status.rawValue)"
            out.append("m-line \(media.index + 1) (\(media.kind))\(status)")
            if let mLine = media.mLine {
                out += media.mLineDetails.isEmpty || media.status != .changed ? lines(mLine) : ["  ~ m= " + media.mLineDetails.joined(separator: "; ")]
            }
            for codec in media.codecs {
                switch codec.kind {
                case .added: out.append("  + codec \(codec.codec) (\(codec.newPayloadType ?? 0))")
                case .removed: out.append("  - codec \(codec.codec) (\(codec.oldPayloadType ?? 0))")
                case .changed: out.append("  ~ codec \(codec.codec) (\(codec.oldPayloadType ?? 0)): " + codec.details.joined(separator: "; "))
                }
            }
            out += media.lines.flatMap(lines)
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func lines(_ change: SDPLineChange) -> [String] {
        switch change.kind {
        case .added: return change.added.map { "  + " + $0 }
        case .removed: return change.removed.map { "  - " + $0 }
        case .changed: return ["  ~ \(change.removed.first ?? "")  →  \(change.added.first ?? "")"]
        }
    }
}
