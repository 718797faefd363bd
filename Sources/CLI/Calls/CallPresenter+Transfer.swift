import Parley

extension CallPresenter {
    /// A transfer's progress: one `transfer` event each step (docs/cli.md).
    func transfer(_ call: String, _ progress: TransferProgress) {
        let (step, destination, reason): (String, String, String?) =
            switch progress {
            case .requested(let destination): ("requested", destination, nil)
            case .completed(let destination): ("completed", destination, nil)
            case .failed(let destination, let reason): ("failed", destination, reason)
            case .transferred(let destination): ("transferred", destination, nil)
            case .redirected(let destination, let response): ("redirected", destination, response)
            case .redirectNotFollowed(let destination, let reason): ("redirect-not-followed", destination, reason)
            }
        if json {
            JSONEvents.emit("transfer", TransferPayload(call: call, transfer: step, destination: destination, reason: reason))
            return
        }
        let text: String =
            switch progress {
            case .requested: "transferring to \(destination)"
            case .completed: "transferred to \(destination)"
            case .failed: "transfer to \(destination) failed: \(reason ?? "")"
            case .transferred: "the far end sent the call on to \(destination)"
            case .redirected: "\(reason ?? "a redirect") sent the call on to \(destination)"
            case .redirectNotFollowed: "a redirect to \(destination) not followed: \(reason ?? "")"
            }
        note("call \(call.prefix(8)): \(text)")
    }
}

/// `merge`: `merged` (with `with`) or `unmerged` (from `with`).
struct MergePayload: Encodable { let call: String; let merge: String; let with: String }

extension CallPresenter {
    /// A three-way call's changes: one `merge` event each.
    func merge(_ call: String, merged: Bool, other: String) {
        if json {
            JSONEvents.emit("merge", MergePayload(call: call, merge: merged ? "merged" : "unmerged", with: other))
        } else {
            note("call \(call.prefix(8)): \(merged ? "merged with" : "split from") call \(other.prefix(8))")
        }
    }
}
