import Drivers
import Parley

/// `--bot SCRIPT` of answer, call and load: the script read and checked before anything connects.
enum BotScriptFile {
    static func load(_ path: String) throws(ParleyError) -> BotScript {
        do {
            return try BotScript.load(path: path)
        } catch {
            throw ParleyError(kind: .configuration, message: error.description)
        }
    }
}
