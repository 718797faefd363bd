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

public struct VertoConfiguration: Sendable {
    public var credentials: VertoCredentials
    /// `telnyx_rtc` for Telnyx (and the embedded switch), `verto` for FreeSWITCH.
    public var methodPrefix: String = "telnyx_rtc"
    public var readiness: VertoReadiness = .gatewayRegistered
    public var userAgent: String = "Parley"
    public var loginParams: JSONValue = ["attach_call": "true"]
    public var userVariables: JSONValue = .object([:])
    public var requestTimeout: Duration = .seconds(10)
    public var gatewayRetryInterval: Duration = .seconds(3)
    public var gatewayRetries: Int = 3
    /// Silence before we ping the server ourselves, and how long we wait for its answer.
    public var keepaliveIdle: Duration = .seconds(35)
    public var keepaliveTimeout: Duration = .seconds(10)
    /// Answer server requests with `{"result":{"method":…}}` as the JS SDK does.
    public var acknowledgeServerRequests: Bool = true

    public init(credentials: VertoCredentials) {
        self.credentials = credentials
    }
}

/// Registration states a Telnyx gateway reports (docs/verto-protocol.md §3.2).
public enum GatewayState: String, Sendable, CaseIterable {
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
    public static func list(from value: JSONValue?) -> [CustomHeader] {
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
    public static let recoveryOnTimerExpire = HangupCause(cause: "RECOVERY_ON_TIMER_EXPIRE", causeCode: 102)
    public static let originatorCancel = HangupCause(cause: "ORIGINATOR_CANCEL", causeCode: 487)
    public static let unallocatedNumber = HangupCause(cause: "UNALLOCATED_NUMBER", causeCode: 1)
    public static let normalTemporaryFailure = HangupCause(cause: "NORMAL_TEMPORARY_FAILURE", causeCode: 41)
    public static let incompatibleDestination = HangupCause(cause: "INCOMPATIBLE_DESTINATION", causeCode: 88)
}

/// Our side of an outgoing call's dialogParams.
public struct VertoDialParameters: Sendable, Equatable {
    public var callID: String
    public var destination: String
    public var callerName: String = ""
    public var callerNumber: String = ""
    public var remoteCallerName: String = "Outbound Call"
    public var customHeaders: [CustomHeader] = []
    /// Opaque, passed through (Telnyx expects base64).
    public var clientState: String?
    public var trickle: Bool = false

    public init(callID: String, destination: String) {
        self.callID = callID
        self.destination = destination
    }
}

/// A call the server offers us: a new invite, or an attach re-offer after a reconnect.
public struct VertoOffer: Sendable, Equatable {
    public var callID: String
    public var sdp: String
    public var callerName: String?
    public var callerNumber: String?
    public var calleeName: String?
    public var calleeNumber: String?
    public var customHeaders: [CustomHeader]
    public var clientState: String?
    public var telnyxSessionID: String?
    public var telnyxLegID: String?
    public var telnyxCallControlID: String?
    /// The whole params object, for anything else the server adds.
    public var params: JSONValue
}

/// Progress of an outgoing call: ringing, early media or answer.
public struct VertoCallProgress: Sendable, Equatable {
    public init(callID: String, sdp: String?, customHeaders: [CustomHeader] = [], telnyxSessionID: String? = nil, telnyxLegID: String? = nil,
                params: JSONValue) {
        self.callID = callID
        self.sdp = sdp
        self.customHeaders = customHeaders
        self.telnyxSessionID = telnyxSessionID
        self.telnyxLegID = telnyxLegID
        self.params = params
    }

    public var callID: String
    public var sdp: String?
    public var customHeaders: [CustomHeader]
    public var telnyxSessionID: String?
    public var telnyxLegID: String?
    public var params: JSONValue
}

/// A trickled ICE candidate in its Verto wrapping.
public struct VertoCandidate: Sendable, Equatable {
    public var callID: String
    /// The candidate attribute value, without a leading "a=" or "candidate:" prefix removed:
    /// always in the "candidate:…" form.
    public var candidate: String
    public var sdpMid: String?
    public var sdpMLineIndex: Int?

    public init(callID: String, candidate: String, sdpMid: String?, sdpMLineIndex: Int?) {
        self.callID = callID
        self.candidate = candidate
        self.sdpMid = sdpMid
        self.sdpMLineIndex = sdpMLineIndex
    }
}

public enum HoldAction: String, Sendable {
    case hold, unhold, toggleHold
}
