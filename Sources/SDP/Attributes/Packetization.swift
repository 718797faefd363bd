/// `a=ptime:<milliseconds>` (RFC 8866 §6.4)
public struct PTime: TypedAttribute, Equatable {
    public static let attributeName = "ptime"
    public var milliseconds: Double

    public init(milliseconds: Double) { self.milliseconds = milliseconds }

    public init(attributeValue: String?) throws(AttributeValueError) {
        guard let value = Lexer.decimal(try Self.requireValue(attributeValue)), value > 0 else {
            throw AttributeValueError("a=ptime must be a positive number of milliseconds")
        }
        milliseconds = value
    }

    public var attributeValue: String? { formatMilliseconds(milliseconds) }
}

/// `a=maxptime:<milliseconds>` (RFC 8866 §6.5)
public struct MaxPTime: TypedAttribute, Equatable {
    public static let attributeName = "maxptime"
    public var milliseconds: Double

    public init(milliseconds: Double) { self.milliseconds = milliseconds }

    public init(attributeValue: String?) throws(AttributeValueError) {
        guard let value = Lexer.decimal(try Self.requireValue(attributeValue)), value > 0 else {
            throw AttributeValueError("a=maxptime must be a positive number of milliseconds")
        }
        milliseconds = value
    }

    public var attributeValue: String? { formatMilliseconds(milliseconds) }
}

/// `20` rather than `20.0`; `2.5` stays `2.5`.
func formatMilliseconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
