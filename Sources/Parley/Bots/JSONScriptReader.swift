import Foundation

/// Reads a JSON script into the same tree as the YAML subset. JSON keeps no line numbers once
/// parsed, so errors found later name the file only; syntax errors carry Foundation's position.
enum JSONScriptReader {
    static func parse(_ text: String) throws(ScriptSyntaxError) -> ScriptNode {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        } catch {
            throw ScriptSyntaxError(line: nil, message: "not valid JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)")")
        }
        return node(object)
    }

    private static func node(_ value: Any) -> ScriptNode {
        switch value {
        case let dictionary as [String: Any]:
            // JSON objects are unordered; sorting keeps error order stable from run to run.
            let entries = dictionary.keys.sorted().map { key in
                ScriptNode.Entry(key: key, line: nil, value: node(dictionary[key]!))
            }
            return .mapping(entries, line: nil)
        case let array as [Any]:
            return .sequence(array.map(node), line: nil)
        case let string as String:
            return .scalar(string, line: nil)
        case let number as NSNumber:
            // true and false arrive as NSNumber too; only their type code tells them from 1 and 0.
            if String(cString: number.objCType) == "c" { return .scalar(number.boolValue ? "true" : "false", line: nil) }
            return .scalar(number.stringValue, line: nil)
        default:
            return .null(line: nil)
        }
    }
}
