import ArgumentParser
import Parley

/// A local input (a file to play or record, a CA file) that fails its check before anything
/// connects, with the exit status it earns: 66 (EX_NOINPUT) for a file that cannot be read, 64
/// (EX_USAGE) for the rest.
struct LocalInputError: Error {
    let error: ParleyError
    let status: Int32

    static let unreadableInput: Int32 = 66
}

extension ConnectionOptions {
    /// Every local input of the connection and media flags, checked before the log opens or
    /// anything connects (call, answer, and any command that shares these groups); returns
    /// the config profile chosen, if any.
    func checkLocalInputs(media: MediaFlags) throws(LocalInputError) -> ConfigProfile? {
        let profile = try configProfile()
        try checkLocalFiles()
        try media.checkLocalFiles(profile: profile)
        return profile
    }

    /// `checkLocalInputs` for a command that runs many calls: a failure is shown and exits with
    /// its status.
    func checkLocalInputs(media: MediaFlags, presenter: CallPresenter) throws(ExitCode) -> ConfigProfile? {
        do { return try checkLocalInputs(media: media) } catch {
            presenter.error(error.error)
            throw ExitCode(error.status)
        }
    }
}
