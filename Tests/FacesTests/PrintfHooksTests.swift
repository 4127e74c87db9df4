import Foundation
import Imaging
import Testing

/// libquadmath (under OpenCV's LAPACK) registers printf handlers at load time, which puts
/// every printf in the process on glibc's slow path; the face shim's stand-ins refuse them
/// (`printfhooks.c`).
@Suite struct PrintfHooksTests {
    @Test func libquadmathsRegistrationsAreRefused() {
        // Loaded with OpenCV; if it ever is not, the stand-ins have nothing to refuse.
        #expect(dlopen("libquadmath.so.0", RTLD_NOW | RTLD_NOLOAD) != nil, "libquadmath is no longer loaded: drop printfhooks.c")
        // Each of the three names reaches a stand-in: one registered handler is enough to slow
        // every printf down.
        #expect(ProcessGuards.printfHooksRefusing)
        #expect(ProcessGuards.printfHooksRefused > 0, "libquadmath's handlers were registered with glibc")
    }

    @Test func printfStillFormatsFloatsAfterTheRefusal() {
        #expect(String(format: "%.3f|%e|%g|%5.1f", 3.14159, 1234.5, 0.0001, 2.25) == "3.142|1.234500e+03|0.0001|  2.2")
    }
}
