import Glibc
import ICE
import Media
import SDP

extension ParleyError {
    package init(_ error: ICEError) {
        switch error {
        case .turnAuthenticationFailed: self.init(kind: .turnAuthentication, message: error.description)
        case .configuration: self.init(kind: .configuration, message: error.description)
        case .outOfFileDescriptors: self.init(kind: .outOfFileDescriptors, message: error.description)
        default: self.init(kind: .iceFailed, message: error.description)
        }
    }

    package init(_ error: DTLSError) {
        self.init(kind: .dtlsFailed, message: error.description)
    }

    package init(_ error: MediaSessionError) {
        switch error {
        case .noSupportedCodec: self.init(kind: .noSupportedCodec, message: error.description)
        case .invalidDTMF: self.init(kind: .configuration, message: error.description)
        default: self.init(kind: .negotiation, message: error.description)
        }
    }

    package init(_ error: AudioError) {
        if case .outOfFileDescriptors(let path) = error {
            let limit = FileDescriptorLimit.exhausted(errno: EMFILE)?.description ?? error.description
            self.init(kind: .outOfFileDescriptors, message: "\(limit) (opening \(path))")
            return
        }
        if case .unavailable = error {
            self.init(kind: .audioUnavailable, message: error.description)
            return
        }
        self.init(kind: .audio, message: error.description)
    }

    package init(_ error: CallOperationError) {
        self.init(kind: .callState, message: error.description)
    }

    static func negotiation(_ message: String) -> ParleyError {
        ParleyError(kind: .negotiation, message: message)
    }
}
