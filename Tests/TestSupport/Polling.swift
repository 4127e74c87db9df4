import Foundation

/// Waits, polling every few milliseconds, until `condition` holds or `timeout` seconds of
/// real time have passed; returns whether it held. For waiting on what another thread
/// does, never for letting a timeout expire (tests move a manual clock for that).
@discardableResult
public func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        usleep(2_000)
    }
    return true
}

/// Lets other threads run for `milliseconds` of real time (to let data reach a socket
/// buffer, say); not a way to make time pass for the code under test.
public func settle(milliseconds: Int) {
    usleep(useconds_t(milliseconds * 1000))
}
