import CNice

/// `g_object_set` and `g_object_get` are variadic and so out of Swift's reach; these set or get one property each.
enum GObjectProperties {
    // GLib's fundamental type ids (G_TYPE_MAKE_FUNDAMENTAL(n) == n << 2); the macros do not import.
    private static let booleanType = GType(5 << 2)
    private static let uintType = GType(7 << 2)
    private static let stringType = GType(16 << 2)

    static func set(_ object: OpaquePointer, _ name: String, bool: Bool) {
        var value = GValue()
        g_value_init(&value, booleanType)
        g_value_set_boolean(&value, bool ? 1 : 0)
        g_object_set_property(UnsafeMutablePointer<GObject>(object), name, &value)
        g_value_unset(&value)
    }

    static func bool(_ object: OpaquePointer, _ name: String) -> Bool {
        var value = GValue()
        g_value_init(&value, booleanType)
        defer { g_value_unset(&value) }
        g_object_get_property(UnsafeMutablePointer<GObject>(object), name, &value)
        return g_value_get_boolean(&value) != 0
    }

    static func set(_ object: OpaquePointer, _ name: String, uint: UInt32) {
        var value = GValue()
        g_value_init(&value, uintType)
        g_value_set_uint(&value, uint)
        g_object_set_property(UnsafeMutablePointer<GObject>(object), name, &value)
        g_value_unset(&value)
    }

    static func set(_ object: OpaquePointer, _ name: String, string: String) {
        var value = GValue()
        g_value_init(&value, stringType)
        g_value_set_string(&value, string)
        g_object_set_property(UnsafeMutablePointer<GObject>(object), name, &value)
        g_value_unset(&value)
    }
}
