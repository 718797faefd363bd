/// How a Verto client proves who it is. Neither value ever appears in logs or errors.
public enum VertoCredentials: Sendable, Equatable {
    case password(login: String, password: String)
    case token(String)
}

/// What makes a Verto session ready for calls.
public enum VertoReadiness: Sendable, Equatable {
    /// Telnyx: after clientReady, ask `gatewayState` until REGED.
    case gatewayRegistered
    /// Plain FreeSWITCH mod_verto: the login result is enough.
    case loggedIn
}

package struct VertoConfiguration: Sendable {
    package var credentials: VertoCredentials
    /// `telnyx_rtc` for Telnyx (and the embedded switch), `verto` for FreeSWITCH.
    package var methodPrefix: String = "telnyx_rtc"
    package var readiness: VertoReadiness = .gatewayRegistered
    /// The SDKs' `<name>-<version>` form ("iOS-4.1.2", "Android-3.7.0", "Web-2.16.0");
    /// `VoiceClientConfiguration` puts Parley's version in.
    package var userAgent: String = "Parley"
    package var loginParams: JSONValue = ["attach_call": "true"]
    package var userVariables: JSONValue = .object([:])
    package var requestTimeout: Duration = .seconds(10)
    package var gatewayRetryInterval: Duration = .seconds(3)
    var gatewayRetries: Int = 3
    /// Silence from the server before we ping it ourselves, and how long we wait for its answer.
    var keepaliveIdle: Duration = .seconds(35)
    /// Time since our last frame before we ping: half the server's 60 s idle timeout.
    var sendIdle: Duration = .seconds(30)
    var keepaliveTimeout: Duration = .seconds(10)
    /// Answer server requests with `{"result":{"method":…}}` as the JS SDK does.
    var acknowledgeServerRequests: Bool = true

    package init(credentials: VertoCredentials) {
        self.credentials = credentials
    }
}

/// Registration states a Telnyx gateway reports (docs/verto-protocol.md §3.2).
enum GatewayState: String, Sendable, CaseIterable {
    case unreged = "UNREGED", trying = "TRYING", register = "REGISTER", reged = "REGED", unregister = "UNREGISTER"
    case failed = "FAILED", failWait = "FAIL_WAIT", expired = "EXPIRED", noreg = "NOREG", down = "DOWN", timeout = "TIMEOUT"
}

/// A `{"name":"X-…","value":"…"}` SIP header carried in dialogParams.custom_headers.
public struct CustomHeader: Sendable, Equatable, Codable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Reads a `custom_headers` array, skipping entries without a string name and value.
    package static func list(from value: JSONValue?) -> [CustomHeader] {
        (value?.arrayValue ?? []).compactMap { entry in
            guard let name = entry["name"]?.stringValue, let value = entry["value"]?.stringValue else { return nil }
            return CustomHeader(name: name, value: value)
        }
    }
}

/// Why a call ended, as the server or the client states it (docs/verto-protocol.md §5.6, §11).
public struct HangupCause: Sendable, Equatable {
    public var cause: String
    public var causeCode: Int?
    public var sipCode: Int?
    public var sipReason: String?
    public var sipCallID: String?

    public init(cause: String, causeCode: Int? = nil, sipCode: Int? = nil, sipReason: String? = nil, sipCallID: String? = nil) {
        self.cause = cause
        self.causeCode = causeCode
        self.sipCode = sipCode
        self.sipReason = sipReason
        self.sipCallID = sipCallID
    }

    public static let normalClearing = HangupCause(cause: "NORMAL_CLEARING", causeCode: 16)
    public static let userBusy = HangupCause(cause: "USER_BUSY", causeCode: 17)
    public static let callRejected = HangupCause(cause: "CALL_REJECTED", causeCode: 21)
    public static let noAnswer = HangupCause(cause: "NO_ANSWER", causeCode: 19)
    public static let recoveryOnTimerExpire = HangupCause(cause: "RECOVERY_ON_TIMER_EXPIRE", causeCode: 102)
    public static let originatorCancel = HangupCause(cause: "ORIGINATOR_CANCEL", causeCode: 487)
    public static let unallocatedNumber = HangupCause(cause: "UNALLOCATED_NUMBER", causeCode: 1)
    public static let normalTemporaryFailure = HangupCause(cause: "NORMAL_TEMPORARY_FAILURE", causeCode: 41)
    public static let incompatibleDestination = HangupCause(cause: "INCOMPATIBLE_DESTINATION", causeCode: 88)
    /// FreeSWITCH's own cause (not Q.850) for a party that transferred its call away.
    public static let blindTransfer = HangupCause(cause: "BLIND_TRANSFER", causeCode: 800)
}

/// Our side of an outgoing call's dialogParams.
package struct VertoDialParameters: Sendable, Equatable {
    package var callID: String
    package var destination: String
    package var callerName: String = ""
    package var callerNumber: String = ""
    package var remoteCallerName: String = "Outbound Call"
    package var customHeaders: [CustomHeader] = []
    /// Opaque, passed through (Telnyx expects base64).
    package var clientState: String?
    package var trickle: Bool = false

    package init(callID: String, destination: String) {
        self.callID = callID
        self.destination = destination
    }
}

/// A call the server offers us: a new invite, or an attach re-offer after a reconnect.
package struct VertoOffer: Sendable, Equatable {
    package var callID: String
    package var sdp: String
    package var callerName: String?
    package var callerNumber: String?
    package var calleeName: String?
    package var calleeNumber: String?
    package var customHeaders: [CustomHeader]
    package var clientState: String?
    package var telnyxSessionID: String?
    package var telnyxLegID: String?
    package var telnyxCallControlID: String?
    /// The whole params object, for anything else the server adds.
    package var params: JSONValue
}

/// Progress of an outgoing call: ringing, early media or answer.
package struct VertoCallProgress: Sendable, Equatable {
    package init(callID: String, sdp: String?, customHeaders: [CustomHeader] = [], telnyxSessionID: String? = nil, telnyxLegID: String? = nil,
                params: JSONValue) {
        self.callID = callID
        self.sdp = sdp
        self.customHeaders = customHeaders
        self.telnyxSessionID = telnyxSessionID
        self.telnyxLegID = telnyxLegID
        self.params = params
    }

    package var callID: String
    package var sdp: String?
    package var customHeaders: [CustomHeader]
    package var telnyxSessionID: String?
    package var telnyxLegID: String?
    package var params: JSONValue
}

/// A trickled ICE candidate in its Verto wrapping.
package struct VertoCandidate: Sendable, Equatable {
    package var callID: String
    /// The candidate attribute value, without a leading "a=" or "candidate:" prefix removed:
    /// always in the "candidate:…" form.
    package var candidate: String
    package var sdpMid: String?
    package var sdpMLineIndex: Int?

    package init(callID: String, candidate: String, sdpMid: String?, sdpMLineIndex: Int?) {
        self.callID = callID
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
    }
}

package enum HoldAction: String, Sendable {
    case hold, unhold, toggleHold
}
