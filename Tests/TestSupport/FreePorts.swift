import Foundation

/// The first of `count` consecutive ports that 127.0.0.1 can bind now, picked at random below
/// the ephemeral range (32768 and up, where any test's client sockets take theirs), for
/// servers that are started by a script on ports given in advance. Checked by binding each, so
/// ports a running server holds (a Ceph of another suite, say) are not handed out.
public func freeConsecutivePorts(_ count: Int) -> Int? {
    for _ in 0..<500 {
        let base = Int.random(in: 20_000..<(32_768 - count))
        var sockets: [Int32] = []
        defer { for fd in sockets { close(fd) } }
        let allBind = (base..<(base + count)).allSatisfy { port in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return false }
            sockets.append(fd)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            return withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
        }
        if allBind { return base }
    }
    return nil
}
