import COpus
import Glibc

/// `opus_encoder_ctl` is variadic, which Swift cannot call. Every request we make passes one
/// `opus_int32`, and on the System V x86-64 and AArch64 Linux ABIs a variadic int argument travels
/// exactly like a fixed one, so the symbol is called through a fixed two-argument signature.
/// (A C wrapper in the COpus shim would remove this; see docs/media.md.)
enum OpusControl {
    typealias SetFunction = @convention(c) (OpaquePointer?, Int32, Int32) -> Int32

    static let encoderSet: SetFunction? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "opus_encoder_ctl") else { return nil }
        return unsafeBitCast(symbol, to: SetFunction.self)
    }()

    static func set(_ encoder: OpaquePointer, _ request: Int32, _ value: Int32, name: String) throws(CodecError) {
        guard let function = encoderSet else { throw .unsupported("opus_encoder_ctl not found in the process") }
        let code = function(encoder, request, value)
        guard code == OPUS_OK else { throw .library(function: "opus_encoder_ctl(\(name))", code: code) }
    }
}
