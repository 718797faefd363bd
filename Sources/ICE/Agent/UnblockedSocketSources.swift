import CNice

/// GLib blocks a source that may not recurse for as long as it dispatches it (`g_main_dispatch`
/// in GLib's gmain.c): it takes the source's descriptors out of the context's poll set before
/// the callback and puts them back after, and each change signals the context's wake-up
/// eventfd. For a libnice socket source that is two eventfd `write`s per dispatch, then a poll
/// round that finds only the wake-up descriptor ready and a `read` to clear it: most of the
/// system calls a received packet cost (docs/performance.md, "System calls per received packet").
/// Blocking only guards against a callback that iterates its own context; nothing on a network
/// loop does (neither Parley nor libnice with `nice_agent_attach_recv`), so libnice's socket
/// sources may as well recurse. libnice makes them itself (one per socket, again for every new
/// socket and on an ICE restart) and never hands them out, so the receive callback marks the
/// source dispatching it: GLib still unblocks that source after this dispatch, and never blocks
/// it again.
enum UnblockedSocketSources {
    /// On the loop's thread, from libnice's receive callback for `component` (1-based). Marks
    /// the dispatching source the first time the component's packets come from it; after that
    /// a packet costs one pointer comparison.
    static func allowRecursion(_ generation: Generation, component: Int) {
        guard let source = g_main_current_source(), generation.unblockedSources.indices.contains(component - 1),
              generation.unblockedSources[component - 1] != source else { return }
        g_source_set_can_recurse(source, 1)
        generation.unblockedSources[component - 1] = source
    }
}
