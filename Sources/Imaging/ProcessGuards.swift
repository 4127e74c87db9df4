import CProcessGuards

/// The process-wide stand-ins of `CProcessGuards`, as the server and the tests ask after them:
/// each works only if the executable exports it (Package.swift's one linker block).
public enum ProcessGuards {
    /// Whether liborc's program compiles and frees run under the guard's lock (`orcguard.c`);
    /// without it, two transforms at once can share or corrupt orc's code memory, so libvips
    /// is started with its vector paths off instead (slower, never wrong).
    public static var orcGuarded: Bool { pg_orc_guarded() != 0 }

    /// Orc programs compiled and freed under that lock so far.
    public static var orcGuardedCalls: Int { pg_orc_guarded_calls() }

    /// printf handler registrations refused so far (`printfhooks.c`): libquadmath, which OpenCV's
    /// LAPACK brings in, would otherwise put every printf of the process on glibc's slow path.
    public static var printfHooksRefused: Int { Int(pg_printf_hooks_refused()) }

    /// Whether every printf handler registration of the process reaches those stand-ins.
    public static var printfHooksRefusing: Bool { pg_printf_hooks_refusing() != 0 }
}
