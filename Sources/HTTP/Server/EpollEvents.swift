import CSystem

/// An epoll event mask, typed: what a connection waits for and what the kernel reported.
struct EpollEvents: OptionSet, Sendable {
    let rawValue: UInt32

    static let readable = EpollEvents(rawValue: csys_epollin())
    static let writable = EpollEvents(rawValue: csys_epollout())
    /// The peer shut down its sending side (FIN).
    static let peerClosedWriting = EpollEvents(rawValue: csys_epollrdhup())
    /// Both directions are shut (a reset, or our shutdown after the peer's FIN). Always reported.
    static let hangUp = EpollEvents(rawValue: csys_epollhup())
    /// An error on the socket. Always reported.
    static let error = EpollEvents(rawValue: csys_epollerr())
}
