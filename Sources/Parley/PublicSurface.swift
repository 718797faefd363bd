// `import Parley` is all a library user writes (docs/architecture.md, "Modules"). The layers below
// make public exactly the types Parley's API takes or returns, and each is re-exported here by
// name, so their `package` declarations stay out of reach; ModuleBoundaryTests keeps this list
// equal to their public types. SDP is a public library of its own whose types the options take
// (munging rules, codec order, capabilities), so it comes whole.
@_exported import SDP

@_exported import struct Signaling.CustomHeader
@_exported import struct Signaling.HangupCause
@_exported import struct Signaling.TLSClientCertificate
@_exported import enum Signaling.TLSClientCertificateError
@_exported import enum Signaling.TLSVerification
@_exported import enum Signaling.VertoCredentials
@_exported import enum Signaling.VertoReadiness
@_exported import enum Signaling.WebSocketError
@_exported import struct Signaling.WebSocketOptions
@_exported import struct Signaling.WebSocketURL

@_exported import struct ICE.ICEAgentConfiguration
@_exported import enum ICE.ICECandidateType
@_exported import enum ICE.ICEConfigurationError
@_exported import enum ICE.ICEConnectionState
@_exported import enum ICE.ICEPairTransport
@_exported import struct ICE.ICESelectedPair
@_exported import struct ICE.ICEServer

@_exported import enum Media.AudioError
@_exported import enum Media.AudioSinkSpec
@_exported import enum Media.AudioSourceSpec
@_exported import struct Media.MediaStatistics
@_exported import struct Media.OpusSettings
@_exported import struct Media.VoiceProcessing

// Bots and agents take the caller's `Logger` (swift-log).
@_exported import struct Logging.Logger
