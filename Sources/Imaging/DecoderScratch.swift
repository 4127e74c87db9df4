import CProcessGuards

/// libjpeg's large buffers (a progressive JPEG's coefficients, 2 bytes per sample), kept
/// between decodes up to `capacity` instead of mapped and faulted in afresh for each
/// (`jpegscratch.c`). The app sets the capacity from the memory plan and calls `release`
/// when the transforms go idle, so memory at rest is what it was without it.
public enum DecoderScratch {
    /// Bytes of freed buffers kept for the next decode; 0 (the default) keeps none.
    public static var capacity: Int {
        get { pg_scratch_read_stats(pg_scratch_shared()).capacity }
        set { pg_scratch_set_capacity(pg_scratch_shared(), max(0, newValue)) }
    }

    /// Unmaps every kept buffer.
    public static func release() { pg_scratch_release(pg_scratch_shared()) }

    /// Whether libjpeg's calls reach the pool: only if the executable exports its stand-ins
    /// (Package.swift). Without them libjpeg uses malloc, as it would anyway.
    public static var servesLibjpeg: Bool { pg_scratch_serves_libjpeg() != 0 }

    /// Buffers mapped and buffers reused since the start.
    public static var counts: (maps: Int, reuses: Int) {
        let stats = pg_scratch_read_stats(pg_scratch_shared())
        return (stats.maps, stats.reuses)
    }
}
