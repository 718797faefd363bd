import ICE
import Media

/// Carries a media session's datagrams on the selected pair of an ICE agent. Media is always
/// rtcp-muxed, so everything goes on component 1.
final class ICEMediaTransport: MediaTransport {
    private let agent: ICEAgent

    init(agent: ICEAgent) {
        self.agent = agent
    }

    func send(_ bytes: UnsafeRawBufferPointer) -> Bool {
        agent.send(bytes, component: 1)
    }
}
