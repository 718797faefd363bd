import COpus

/// Encoder settings through the COpus shim's fixed-argument wrapper of `opus_encoder_ctl`.
enum OpusControl {
    static func set(_ encoder: OpaquePointer, _ request: Int32, _ value: Int32, name: String) throws(CodecError) {
        let code = parley_opus_encoder_set(encoder, request, value)
        guard code == OPUS_OK else { throw .library(function: "opus_encoder_ctl(\(name))", code: code) }
    }
}
