import Yams
import Parley

// Line numbers for the messages of every YAML file Parley reads (bot scripts, munging rules).

extension Node {
    /// 1-based line of the node in its file.
    var line: Int? { mark?.line }
}

extension YamlError {
    var line: Int? {
        switch self {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        default: return nil
        }
    }

    var problem: String {
        switch self {
        case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _): return problem
        default: return String(describing: self)
        }
    }
}
