/// A parsed script document before it is given meaning: what the YAML subset and JSON both
/// produce, so one decoder validates both. Scalars stay text until the decoder knows their type.
indirect enum ScriptNode: Equatable {
    struct Entry: Equatable {
        var key: String
        var line: Int?
        var value: ScriptNode
    }

    case scalar(String, line: Int?)
    case mapping([Entry], line: Int?)
    case sequence([ScriptNode], line: Int?)
    /// An absent value (`key:` with nothing under it, JSON null).
    case null(line: Int?)

    var line: Int? {
        switch self {
        case .scalar(_, let line), .mapping(_, let line), .sequence(_, let line), .null(let line): line
        }
    }

    var kindName: String {
        switch self {
        case .scalar: "a scalar"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .null: "nothing"
        }
    }
}
