import Clocks
import CSystem
import FileSystem
import Foundation
import HTTP
import Locking
import Synchronization
import WireCoding

/// One epoll thread. It owns its listener and its connections: nothing here is touched from
/// another thread except `execute`, which queues a closure and wakes the loop via eventfd.
package final class EventLoop: @unchecked Sendable {
    package let server: ServerCore
    private let epoll: FileDescriptor
    private let wake: FileDescriptor
    private var listener: FileDescriptor?
    private var epfd: Int32 { epoll.raw }
    private var wakeFD: Int32 { wake.raw }
    private var connections: [Int32: Connection] = [:]
    private let tasks = Locked<[@Sendable () -> Void]>([])
    private let threadID = Atomic<UInt>(0)
    /// The time after the last epoll_wait: one clock read per wake-up, not per call.
    private(set) var now: Double
    private var stopping = false
    private var draining = false
    private var drainDeadline = Double.infinity
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var dateLine = SecondText { "Date: \(HTTPDate.format($0))\r\n" }

    private static let wakeToken: UInt64 = 1 << 40
    private static let listenToken: UInt64 = 1 << 41
    package static let readChunk = 64 * 1024

    package init(server: ServerCore) throws {
        self.server = server
        now = server.clock.now()
        guard let epoll = FileDescriptor(adopting: epoll_create1(Int32(EPOLL_CLOEXEC))) else {
            throw SocketError.system("epoll_create1", errno)
        }
        guard let wake = FileDescriptor(adopting: eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))) else {
            throw SocketError.system("eventfd", errno)
        }
        _ = csys_epoll_add(epoll.raw, wake.raw, csys_epollin(), Self.wakeToken)
        self.epoll = epoll
        self.wake = wake
        readBuffer = .allocate(byteCount: Self.readChunk, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
    }

    package var isCurrent: Bool {
        threadID.load(ordering: .relaxed) == UInt(pthread_self())
    }

    package var isDraining: Bool { draining }

    package func adoptListener(_ socket: consuming FileDescriptor) {
        _ = csys_epoll_add(epfd, socket.raw, csys_epollin(), Self.listenToken)
        listener = consume socket
    }

    /// Runs `task` on this loop's thread.
    package func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { $0.append(task) }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: - The loop

    package func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var nextTick = server.clock.now() + Self.tickInterval
        while !stopping {
            let wait = max(0, Int32((nextTick - now) * 1000) + 1)
            let n = csys_epoll_wait(epfd, &tokens, &events, 256, wait)
            if n < 0 && errno != EINTR { break }
            now = server.clock.now()
            for i in 0..<max(0, Int(n)) {
                let token = tokens[i], mask = events[i]
                if token == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                } else if token == Self.listenToken {
                    acceptConnections()
                } else if let connection = connections[Int32(truncatingIfNeeded: token)] {
                    connection.handleEvents(EpollEvents(rawValue: mask))
                }
            }
            runTasks()
            if now >= nextTick {
                nextTick = now + Self.tickInterval
                for connection in Array(connections.values) { connection.checkTimeouts(now: now) }
                if draining && (connections.isEmpty || now >= drainDeadline) { stopping = true }
            }
        }
        for connection in Array(connections.values) { connection.close() }
        closeListener()
        runTasks()
    }

    package static let tickInterval = 0.1

    private func runTasks() {
        while true {
            let batch = tasks.withLock { queue -> [@Sendable () -> Void] in
                let items = queue
                queue.removeAll()
                return items
            }
            if batch.isEmpty { return }
            for task in batch { task() }
        }
    }

    private func acceptConnections() {
        // A few per wake-up, so the loops sharing a port share the clients too.
        var peer = [CChar](repeating: 0, count: 64)
        for _ in 0..<16 {
            guard let listenFD = listener?.raw else { return }
            guard let socket = FileDescriptor(adopting: csys_accept_nonblocking(listenFD, &peer, peer.count)) else { return }
            // Over the limit: closed at once.
            guard server.reserveConnection() else { continue }
            let fd = socket.raw
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let connection = Connection(socket: socket, peer: String(cString: peer), loop: self, now: now)
            connections[fd] = connection
            if csys_epoll_add(epfd, fd, connection.wantedEvents.rawValue, UInt64(fd)) != 0 {
                connection.close()
            }
        }
    }

    private func closeListener() {
        guard let socket = listener.take() else { return }
        _ = csys_epoll_del(epfd, socket.raw)
        socket.close()
    }

    // MARK: - Called by connections

    package func updateInterest(_ connection: Connection, events: EpollEvents) {
        _ = csys_epoll_mod(epfd, connection.fd, events.rawValue, UInt64(connection.fd))
    }

    package func forget(_ connection: Connection) {
        _ = csys_epoll_del(epfd, connection.fd)
        connections.removeValue(forKey: connection.fd)
        server.releaseConnection()
    }

    package func read(into connection: Connection) -> Int {
        let n = Glibc.read(connection.fd, readBuffer.baseAddress, Self.readChunk)
        if n > 0 { connection.appendInput(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n])) }
        return n
    }

    /// `Date: ...\r\n`, formatted once a second.
    package func dateHeaderLine() -> [UInt8] { dateLine.bytes(at: time(nil)) }

    // MARK: - Stopping

    /// Stops accepting; open connections finish their current exchange, idle ones close.
    package func beginDrain(deadline: Double) {
        execute { [self] in
            closeListener()
            draining = true
            drainDeadline = deadline
            for connection in Array(connections.values) { connection.drain() }
            if connections.isEmpty { stopping = true }
        }
    }

    package func stop() {
        execute { [self] in stopping = true }
    }
}
