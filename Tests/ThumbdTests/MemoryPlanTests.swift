import Foundation
import Imaging
import Testing
@testable import Thumbd
@testable import ThumbdCore

/// The memory limit read from cgroup files laid out in a temporary folder as a container
/// (or a host) shows them, and the sizes worked out from it.
@Suite struct SystemMemoryTests {
    /// A root holding `files` (paths below it, text).
    func root(_ files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-memory-\(UUID().uuidString)").path
        for (path, text) in files {
            let url = URL(fileURLWithPath: root + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    static let meminfo = "MemTotal:       24576000 kB\nMemFree:        20000000 kB\n"
    static let machine = 24_576_000 * 1024

    @Test func cgroupV2MemoryMaxInAContainer() throws {
        let system = SystemMemory.read(root: try root([
            "/proc/meminfo": Self.meminfo,
            "/proc/self/cgroup": "0::/\n",
            "/sys/fs/cgroup/memory.max": "536870912\n",
        ]))
        #expect(system.machineBytes == Self.machine)
        #expect(system.cgroupLimit?.bytes == 512 << 20 && system.cgroupLimit?.source == .cgroupV2)
        #expect(system.effective?.bytes == 512 << 20)
        #expect(system.effective?.origin.contains("cgroup v2") == true)
    }

    @Test func cgroupV2TakesTheLowestLimitOnTheWayUpAndMaxIsNoLimit() throws {
        let system = SystemMemory.read(root: try root([
            "/proc/meminfo": Self.meminfo,
            "/proc/self/cgroup": "0::/kubepods/pod1/app\n",
            "/sys/fs/cgroup/kubepods/pod1/app/memory.max": "max\n",
            "/sys/fs/cgroup/kubepods/pod1/memory.max": "1073741824\n",
            "/sys/fs/cgroup/kubepods/memory.max": "4294967296\n",
        ]))
        #expect(system.cgroupLimit?.bytes == 1 << 30)
        let unlimited = SystemMemory.read(root: try root([
            "/proc/meminfo": Self.meminfo,
            "/proc/self/cgroup": "0::/user.slice\n",
            "/sys/fs/cgroup/user.slice/memory.max": "max\n",
        ]))
        #expect(unlimited.cgroupLimit == nil)
        #expect(unlimited.effective?.bytes == Self.machine && unlimited.effective?.origin.contains("machine") == true)
    }

    @Test func cgroupV1LimitInADockerContainer() throws {
        // Docker on a v1 host: the path names the container from the host's root, while the
        // mount shows the container's own group at the top.
        let system = SystemMemory.read(root: try root([
            "/proc/meminfo": Self.meminfo,
            "/proc/self/cgroup": "12:pids:/docker/abc\n9:memory:/docker/abc\n1:name=systemd:/docker/abc\n",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes": "402653184\n",
        ]))
        #expect(system.cgroupLimit?.bytes == 384 << 20 && system.cgroupLimit?.source == .cgroupV1)
        #expect(system.effective?.bytes == 384 << 20)
    }

    @Test func cgroupV1WithoutALimitIsTheMachine() throws {
        // v1 says "no limit" with a number near 2^63: larger than the machine, so the machine counts.
        let system = SystemMemory.read(root: try root([
            "/proc/meminfo": Self.meminfo,
            "/proc/self/cgroup": "4:memory:/\n",
            "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
        ]))
        #expect(system.cgroupLimit?.bytes == 9_223_372_036_854_771_712)
        #expect(system.effective?.bytes == Self.machine)
    }

    @Test func absentFilesGiveWhatIsThere() throws {
        let bare = SystemMemory.read(root: try root(["/proc/meminfo": Self.meminfo]))
        #expect(bare.cgroupLimit == nil && bare.effective?.bytes == Self.machine)
        let nothing = SystemMemory.read(root: try root([:]))
        #expect(nothing.machineBytes == nil && nothing.effective == nil)
        // A group file without the limit file, and garbage in one.
        let garbage = SystemMemory.read(root: try root([
            "/proc/meminfo": "MemTotal: lots\n",
            "/proc/self/cgroup": "0::/a\n",
            "/sys/fs/cgroup/a/memory.max": "-1\n",
        ]))
        #expect(garbage.machineBytes == nil && garbage.cgroupLimit == nil)
    }
}

@Suite struct MemoryPlanTests {
    static func system(_ limit: Int) -> SystemMemory {
        SystemMemory(machineBytes: 24 << 30, cgroupLimit: (limit, .cgroupV1))
    }

    @Test func aContainerLimitSizesEveryPart() throws {
        let plan = try MemoryPlan.make(config: ThumbdConfig(), system: Self.system(512 << 20))
        #expect(plan.limit == 512 << 20 && plan.origin.contains("cgroup v1"))
        #expect(plan.memoryTier == 32 << 20 && plan.originalsTier == 8 << 20 && plan.smallOriginals == 4 << 20)
        // 512 - 56 (process) - 8 (targets) - 4 (small originals) - 12 (a warm renderer) - 25.6 (a
        // twentieth) - 8: the transforms and the memory tier share it.
        #expect(plan.transformBudget == (512 << 20) - (56 << 20) - (8 << 20) - (4 << 20) - (12 << 20) - (512 << 20) / 20 - (8 << 20))
        #expect(plan.sharedRoom == plan.transformBudget)
        // Everything together stays within the limit, with a twentieth to spare.
        let total = MemoryPlan.processBytes + MemoryPlan.targetMemoBytes + plan.smallOriginals + MemoryPlan.rendererBytes
            + plan.originalsTier + plan.transformBudget
        #expect(total <= plan.limit - plan.limit / 20)
        // The largest output a common storm asks for fits: a 3200 x 2406 JPEG XL of a 4:3 photo
        // of 4350 px (a file of 8 MB).
        let jxl = 3200 * 2406 * WorkingMemory.bytesPerOutputPixel(.jxl) + (8 << 20) + 8_000_000
        #expect(jxl <= plan.transformBudget)
    }

    @Test(arguments: [384, 512, 1024, 2048, 8192, 24576])
    func everyLimitFromSmallToLargeFitsAndLargeOnesKeepTheCaps(_ mib: Int) throws {
        let plan = try MemoryPlan.make(config: ThumbdConfig(), system: Self.system(mib << 20))
        let total = MemoryPlan.processBytes + MemoryPlan.targetMemoBytes + plan.smallOriginals + MemoryPlan.rendererBytes
            + plan.originalsTier + (plan.sharedRoom ?? plan.transformBudget + plan.memoryTier)
        #expect(total <= plan.limit - plan.limit / 20)
        #expect(plan.transformBudget >= MemoryPlan.minimumBudget && plan.transformBudget <= 1 << 30)
        if mib >= 8192 { #expect(plan.memoryTier == 256 << 20 && plan.originalsTier == 64 << 20 && plan.smallOriginals == 64 << 20) }
    }

    /// libjpeg's kept buffers come out of the headroom, never more than half of it.
    @Test(arguments: [384, 512, 2048, 24576])
    func theDecoderScratchIsHalfTheHeadroomAtMost64MiB(_ mib: Int) throws {
        let plan = try MemoryPlan.make(config: ThumbdConfig(), system: Self.system(mib << 20))
        #expect(plan.decoderScratch == min(64 << 20, (mib << 20) / 40))
        #expect(plan.decoderScratch <= plan.limit / 20 / 2)
    }

    @Test func theMachineCountsWhenNoContainerLimitIsLower() throws {
        let plan = try MemoryPlan.make(config: ThumbdConfig(), system: SystemMemory(machineBytes: 24 << 30))
        #expect(plan.limit == 24 << 30 && plan.origin.contains("machine"))
        #expect(plan.memoryTier == 256 << 20 && plan.transformBudget == 1 << 30)
    }

    @Test func configuredValuesWinAndTheLimitKeyBeatsTheSystem() throws {
        var config = ThumbdConfig()
        config.limits.memoryBytes = 1 << 30
        config.cache.memoryBytes = 100 << 20
        config.limits.transformMemoryBytes = 300 << 20
        let plan = try MemoryPlan.make(config: config, system: Self.system(512 << 20))
        #expect(plan.limit == 1 << 30 && plan.origin == "limits.memory_bytes")
        #expect(plan.memoryTier == 100 << 20 && plan.transformBudget == 300 << 20 && plan.originalsTier == 16 << 20)
        // A configured budget is the budget: the tier does not yield to it.
        #expect(plan.sharedRoom == nil)
    }

    @Test func valuesThatCannotFitTogetherAreRefusedNamingTheKeys() throws {
        var config = ThumbdConfig()
        config.cache.memoryBytes = 256 << 20
        config.limits.transformMemoryBytes = 384 << 20
        #expect(throws: ConfigError.self) { try MemoryPlan.make(config: config, system: Self.system(512 << 20)) }
        do {
            _ = try MemoryPlan.make(config: config, system: Self.system(512 << 20))
        } catch {
            #expect(error.key == "limits.memory_bytes")
            for named in ["512 MiB", "cgroup v1", "cache.memory_bytes 256 MiB", "limits.transform_memory_bytes 384 MiB",
                          "cache.originals_memory_bytes 8 MiB (auto)"] {
                #expect(error.message.contains(named), "\(error)")
            }
        }
        // A limit too small for anything useful, all auto.
        #expect(throws: ConfigError.self) { try MemoryPlan.make(config: ThumbdConfig(), system: Self.system(120 << 20)) }
        // The bound turned off (0) is allowed while the tiers fit.
        config.limits.transformMemoryBytes = 0
        #expect(try MemoryPlan.make(config: config, system: Self.system(512 << 20)).transformBudget == 0)
    }

    @Test func theLoaderRefusesAMisfitAtStartAndReadsAuto() throws {
        let env = ["THUMBD_CACHE_MEMORY_BYTES": "400MiB", "THUMBD_LIMITS_MEMORY_BYTES": "512MiB"]
        #expect(throws: ConfigError.self) { try ConfigLoader.load(file: nil, environment: env, system: Self.system(24 << 30)) }
        let auto = try ConfigLoader.load(file: nil, environment: ["THUMBD_CACHE_MEMORY_BYTES": "auto",
                                                                  "THUMBD_LIMITS_TRANSFORM_MEMORY_BYTES": "AUTO"])
        #expect(auto.config.cache.memoryBytes == nil && auto.config.limits.transformMemoryBytes == nil)
        let set = try ConfigLoader.load(file: nil, environment: ["THUMBD_LIMITS_MEMORY_BYTES": "2GiB"])
        #expect(set.config.limits.memoryBytes == 2 << 30)
    }
}
