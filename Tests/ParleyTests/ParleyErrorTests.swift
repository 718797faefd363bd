import ICE
import Media
import Parley
import Signaling
import Testing

@Suite struct ParleyErrorTests {
    /// Every server error code of docs/verto-protocol.md's table (§9.1) maps to its own typed error and
    /// keeps the server's message.
    @Test(arguments: [
        (-32000, "Authentication Required", ParleyError.Kind.authenticationRequired),
        (-32001, "Login Incorrect", .authenticationFailed),
        (-32002, "CALL DOES NOT EXIST", .sessionError),
        (-32003, "Gateway registration has timed out", .gatewayTimeout),
        (-32004, "Gateway registration has failed", .gatewayFailed),
        (-32600, "Invalid message", .invalidRequest),
        (-32601, "Invalid Method, Missing Method or Permission Denied", .methodNotFound),
        (-32602, "Permission Denied", .permissionDenied),
        (-31999, "something new", .serverError),
    ])
    func serverErrorCodesMapToTypedErrors(code: Int, message: String, kind: ParleyError.Kind) {
        let signaling = SignalingError.fromServer(JSONRPCErrorObject(code: code, message: message), method: "telnyx_rtc.invite")
        let error = ParleyError(signaling)
        #expect(error.kind == kind)
        #expect(error.serverCode == code)
        #expect(error.message.contains(message))
    }

    @Test func codesAreStableAndDistinct() {
        let codes = ParleyError.Kind.allCases.map(\.rawValue)
        #expect(Set(codes).count == codes.count)
        #expect(ParleyError(.gatewayNotRegistered(lastState: "TRYING")).code == "gateway-not-registered")
        #expect(ParleyError(.janus(code: 458, reason: "No such session")).serverCode == 458)
        #expect(ParleyError(AudioError.unavailable("Connection refused")).code == "audio-unavailable")
        #expect(ParleyError(AudioError.noSuchDevice(kind: "speaker", name: "x", known: [])).code == "audio")
    }

    @Test func aFileThatCannotBeOpenedAtTheDescriptorLimitSaysSo() {
        let error = ParleyError(AudioError.outOfFileDescriptors(path: "/spool/call.wav"))
        #expect(error.code == "out-of-file-descriptors")
        #expect(error.message.hasPrefix("out of file descriptors ("))
        #expect(error.message.contains("ulimit -n") && error.message.hasSuffix("(opening /spool/call.wav)"))
        #expect(ParleyError(ICEError.outOfFileDescriptors(open: 60, limit: 64)).code == "out-of-file-descriptors")
    }
}
