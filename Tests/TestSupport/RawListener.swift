import Dispatch
import Foundation
import Synchronization

/// A raw TCP listener on 127.0.0.1 that counts connections and, optionally, streams an
/// endless close-delimited body (no Content-Length), counting the bytes it got out.
public final class RawListener: @unchecked Sendable {
    let fd: Int32
    public let port: Int
    private let acceptedCount = Atomic<Int>(0)
    public let bytesSent = Mutex(0)
    /// Signalled each time a streaming client's thread has sent its last byte.
    public let streamEnded = DispatchSemaphore(value: 0)

    /// Connections accepted so far.
    public var accepted: Int { acceptedCount.load(ordering: .acquiring) }

    public init(streamBody: Bool) throws {
        let (fd, port) = LoopbackSocket.listening()
        self.fd = fd
        self.port = port
        Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                acceptedCount.add(1, ordering: .releasing)
                guard streamBody else { close(client); continue }
                Thread { [self] in
                    var request = [UInt8](repeating: 0, count: 4096)
                    _ = recv(client, &request, request.count, 0)
                    let head = Array("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nConnection: close\r\n\r\n".utf8)
                    _ = send(client, head, head.count, Int32(MSG_NOSIGNAL))
                    var chunk = [UInt8](repeating: 0xFF, count: 64 * 1024)
                    chunk[0] = 0xFF; chunk[1] = 0xD8; chunk[2] = 0xFF
                    for _ in 0..<1600 {  // 100 MiB at most
                        let n = send(client, chunk, chunk.count, Int32(MSG_NOSIGNAL))
                        if n <= 0 { break }
                        bytesSent.withLock { $0 += n }
                    }
                    close(client)
                    streamEnded.signal()
                }.start()
            }
        }.start()
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
