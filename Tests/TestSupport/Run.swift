import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to the end; returns its exit status, standard output and standard error
/// (kept in a temporary file, read at the end). posix_spawn and waitpid rather than Foundation's Process: with several
/// tests spawning at once, Process.waitUntilExit was seen to wait forever for a child that
/// had already exited (a zombie nobody reaped). `timeout`: the program is killed after this
/// many seconds, so a hang cannot hold the suite.
///
/// The program gets standard input, output and error and no other descriptor of this
/// process: a test's open socket inherited by a daemon the program starts (cluster.sh's
/// replicas) would stay open after the test closed it, and the server would never see
/// that client leave. Nor does it inherit a blocked or ignored signal.
@discardableResult
public func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                       timeout: Double? = nil) throws -> (status: Int32, output: String, errors: String) {
    var fds: [Int32] = [0, 0]
    // Close-on-exec from creation (a socket pair: Swift's Glibc hides pipe2): set afterwards, a
    // spawn on another thread could take the ends meanwhile.
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
        throw SpawnFailed(executable: executable, code: errno)
    }
    defer { close(fds[0]) }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString).err").path
    defer { unlink(errorsFile) }
    posix_spawn_file_actions_addopen(&actions, 2, errorsFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = spawnClosesFrom?(&actions, 3)

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + env).forEach { free($0) } }

    // No signal blocked and every signal at its default in the program: the calling thread
    // (a Dispatch worker) blocks signals, and a blocked mask survives exec, so daemons the
    // program starts (Ceph's) would never see the SIGTERM that stops them.
    var attributes = posix_spawnattr_t()
    cleanSignals(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }

    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
    close(fds[1])
    guard spawned == 0 else { throw SpawnFailed(executable: executable, code: spawned) }
    let watchdog = DispatchWorkItem { _ = kill(pid, SIGKILL) }
    if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog) }

    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        if n > 0 { output += buffer[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    watchdog.cancel()  // before the pid can be reused
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    let errors = (try? String(contentsOfFile: errorsFile, encoding: .utf8)) ?? ""
    return (exitStatus, String(decoding: output, as: UTF8.self), errors)
}

/// `runProgram` on a thread of its own, so a long program does not hold one of the few
/// threads async tests share.
public func runProgramOnItsOwnThread(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                                     timeout: Double? = nil) async throws -> (status: Int32, output: String, errors: String) {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try runProgram(executable, arguments, environment: environment, timeout: timeout) })
        }.start()
    }
}

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which Swift's Glibc
/// module does not show: looked up once by name.
private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
private let spawnClosesFrom: AddCloseFrom? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: AddCloseFrom.self)
}()

/// Spawn attributes (initialized here; the caller destroys them) that give the program no
/// blocked signal and every signal at its default.
func cleanSignals(_ attributes: inout posix_spawnattr_t) {
    posix_spawnattr_init(&attributes)
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
}

public struct SpawnFailed: Error, CustomStringConvertible {
    public let executable: String
    public let code: Int32
    public var description: String { "could not run \(executable): \(String(cString: strerror(code)))" }
}
