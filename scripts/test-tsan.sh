#!/usr/bin/env bash
# The suites that exercise concurrency (cache tiers, single-flight, the memory budget, the worker pool,
# connections, streamed bodies, the thumbnail service, load) under ThreadSanitizer, in .build-tsan.
# -DTSAN only keeps ThumbdService from limiting glibc's malloc arenas, which TSan's allocator
# trips over; locks need no flag (Locked is a pthread mutex, which TSan intercepts).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
swift build --build-tests --sanitize=thread -Xswiftc -DTSAN --scratch-path .build-tsan 2>&1 | grep -E "error|Build complete" || true
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" swift test --skip-build --sanitize=thread -Xswiftc -DTSAN --scratch-path .build-tsan \
    --filter "DiskCacheTests|LRUCacheTests|SingleFlightTests|MemoryBudgetTests|ThumbnailServiceTests|ConnectionTests|ServerTests|ConnectionStateMachineTests|LoadTests|CacheIntegrationTests|LogSinkTests|BodyStreamTests|StreamedBodyTests"
echo "test-tsan: $(( $(date +%s) - start )) s"
