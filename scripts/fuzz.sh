#!/usr/bin/env bash
# Fuzzes thumbd's parsers with libFuzzer: builds thumbd-fuzz with coverage instrumentation,
# AddressSanitizer and libFuzzer's library (in .build-fuzz), then runs each target for
# SECONDS (default 60). New inputs go to .build-fuzz/corpus/TARGET; a crash writes its input
# to .build-fuzz/crashes/ and fails the run (keep it under Tests/Fuzz/corpus/TARGET once
# fixed: `make test` replays that folder).
#   scripts/fuzz.sh [SECONDS] [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
[ $# -gt 0 ] && shift
# Every target has a seed folder under Tests/Fuzz/corpus, named after it.
all=()
for dir in Tests/Fuzz/corpus/*/; do all+=("$(basename "$dir")"); done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
scratch=.build-fuzz
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
runtime=$(find "$toolchain/lib" -name 'libclang_rt.fuzzer_no_main-x86_64.a' -print -quit)
[ -n "$runtime" ] || { echo "fuzz: libclang_rt.fuzzer_no_main is not in the Swift toolchain at $toolchain" >&2; exit 1; }
swift build --scratch-path "$scratch" --product thumbd-fuzz -Xswiftc -DFUZZING -Xswiftc -sanitize=address \
    -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
    -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | grep -E "error|warning: unre|Compiling thumbd|Build complete" || true
binary="$scratch/debug/thumbd-fuzz"
[ -x "$binary" ] || { echo "fuzz: the build failed" >&2; exit 1; }
mkdir -p "$scratch/crashes"
failed=0
for target in "${targets[@]}"; do
    mkdir -p "$scratch/corpus/$target"
    log="$scratch/$target.log"
    if THUMBD_FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=0 "$binary" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$scratch/crashes/$target-" \
        "$scratch/corpus/$target" "Tests/Fuzz/corpus/$target" > "$log" 2>&1; then
        status=ok
    else
        status=CRASH
        failed=1
    fi
    runs=$(awk '/stat::number_of_executed_units/ { print $2 }' "$log")
    corpus=$(ls "$scratch/corpus/$target" | wc -l)
    printf 'fuzz %-22s %10s executions in %ss, corpus %s, %s\n' "$target" "${runs:-?}" "$seconds" "$corpus" "$status"
    [ "$status" = ok ] || grep -E "ERROR|invariant|Fatal|==[0-9]+==" "$log" | head -5
done
exit $failed
