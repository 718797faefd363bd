import Parley

/// A local input (a file to play or record, a CA file) that fails its check before anything
/// connects, with the exit status it earns: 66 (EX_NOINPUT) for a file that cannot be read, 64
/// (EX_USAGE) for the rest.
struct LocalInputError: Error {
    let error: ParleyError
    let status: Int32

    static let unreadableInput: Int32 = 66
}
