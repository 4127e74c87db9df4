import FileSystem
import Glibc
import Testing

@Suite struct FileDescriptorTests {
    static func isOpen(_ raw: Int32) -> Bool { fcntl(raw, F_GETFD) != -1 }

    @Test func aFailedOpenIsNoDescriptor() {
        var adopted = 0
        if FileDescriptor(adopting: -1) != nil { adopted += 1 }
        if FileDescriptor(adopting: open("/nonexistent/x", O_RDONLY)) != nil { adopted += 1 }
        #expect(adopted == 0)
    }

    @Test func itClosesWhenItsOwnerLetsGoAndNotBefore() throws {
        var raw: Int32 = -1
        do {
            guard let file = FileDescriptor(adopting: open("/dev/null", O_RDONLY | O_CLOEXEC)) else { Issue.record("no /dev/null"); return }
            raw = file.raw
            #expect(Self.isOpen(raw))
        }
        #expect(!Self.isOpen(raw))
        guard let file = FileDescriptor(adopting: open("/dev/null", O_RDONLY | O_CLOEXEC)) else { Issue.record("no /dev/null"); return }
        raw = file.raw
        file.close()
        #expect(!Self.isOpen(raw))
    }

    @Test func releasedItIsTheNewOwnersToClose() throws {
        guard let file = FileDescriptor(adopting: open("/dev/null", O_RDONLY | O_CLOEXEC)) else { Issue.record("no /dev/null"); return }
        let raw = file.release()
        #expect(Self.isOpen(raw))
        close(raw)
        guard let opened = FileDescriptor(adopting: open("/dev/null", O_RDONLY | O_CLOEXEC)) else { Issue.record("no /dev/null"); return }
        let shared = OpenFile(opened)
        let descriptor = shared.descriptor
        #expect(Self.isOpen(descriptor))
        withExtendedLifetime(shared) {}
    }
}
