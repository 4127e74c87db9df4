import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to the end; returns its exit status, standard output and standard error
/// (kept in a temporary file, read at the end). posix_spawn and waitpid rather than Foundation's Process: with several
/// tests spawning at once, Process.waitUntilExit was seen to wait forever for a child that
/// had already exited (a zombie nobody reaped).
@discardableResult
public func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
    -> (status: Int32, output: String, errors: String) {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw SpawnFailed(executable: executable, code: errno) }
    // Neither end may outlive the exec: a daemon the program starts would hold the pipe open.
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    defer { close(fds[0]) }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).err").path
    defer { unlink(errorsFile) }
    posix_spawn_file_actions_addopen(&actions, 2, errorsFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + env).forEach { free($0) } }

    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, env)
    close(fds[1])
    guard spawned == 0 else { throw SpawnFailed(executable: executable, code: spawned) }

    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        if n > 0 { output += buffer[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let errors = (try? String(contentsOfFile: errorsFile, encoding: .utf8)) ?? ""
    return (exitStatus, String(decoding: output, as: UTF8.self), errors)
}

public struct SpawnFailed: Error, CustomStringConvertible {
    public let executable: String
    public let code: Int32
    public var description: String { "could not run \(executable): \(String(cString: strerror(code)))" }
}
