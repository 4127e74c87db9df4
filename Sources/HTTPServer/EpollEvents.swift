import Clocks
import CSystem
import HTTP

/// An epoll event mask, typed: what a connection waits for and what the kernel reported.
package struct EpollEvents: OptionSet, Sendable {
    package let rawValue: UInt32

    package static let readable = EpollEvents(rawValue: csys_epollin())
    package static let writable = EpollEvents(rawValue: csys_epollout())
    /// The peer shut down its sending side (FIN).
    package static let peerClosedWriting = EpollEvents(rawValue: csys_epollrdhup())
    /// Both directions are shut (a reset, or our shutdown after the peer's FIN). Always reported.
    package static let hangUp = EpollEvents(rawValue: csys_epollhup())
    /// An error on the socket. Always reported.
    package static let error = EpollEvents(rawValue: csys_epollerr())

    package init(rawValue: UInt32) {
        self.rawValue = rawValue
    }
}
