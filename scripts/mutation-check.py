#!/usr/bin/env python3
"""Mutation check (`make test-mutation`, not part of `make test`): small, realistic bugs put
into a scratch copy of the tree one at a time, each followed by the tests nearest to the
promise it breaks. A mutation the tests do not catch is a promise no test guards: the run
fails. Add a mutation whenever a new promise lands.

Each mutation replaces one exact text (which must occur exactly once, so the list cannot rot
silently) in one file; the scratch copy (.build/mutation/tree) keeps its own build folder,
so each run rebuilds only what the mutation touched.
    scripts/mutation-check.sh [NAME ...]
"""
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRATCH = os.path.join(ROOT, ".build", "mutation")
TREE = os.path.join(SCRATCH, "tree")

# name, file, text, replacement, test filter (a swift test --filter pattern)
MUTATIONS = [
    # 1-4: the promises issue 40 found unguarded.
    ("precondition-order", "Sources/HTTP/Semantics/Representation.swift",
     "        if let field = request.headers[.ifMatch] {",
     "        if let field = request.headers[.ifNoneMatch], let list = EntityTag.List(parsing: field), let etag,\n"
     "           list.containsWeakMatch(for: etag), isGetOrHead { return .notModified }\n"
     "        if let field = request.headers[.ifMatch] {",
     "RepresentationTests|ThumbnailsTests"),
    ("hinted-dpr-unbounded", "Sources/ThumbdProtocol/TransformRequest.swift",
     "(concrete.width, concrete.height) = try Self.scaled(concrete.width, concrete.height, by: dpr, maxDimension: maxDimension)",
     "(concrete.width, concrete.height) = try Self.scaled(concrete.width, concrete.height, by: dpr, maxDimension: .max)",
     "ClientHintsTests"),
    ("slot-generation-check", "Sources/ThumbdKit/Cells/ImageSlot.swift",
     "            guard bound == generation else { return }",
     "            _ = bound",
     "SlotReuseTests"),
    ("picsum-id-process-hash", "Sources/ThumbdCore/Picsum/PicsumCatalog.swift",
     "static func preferredID(path: String) -> Int { Int(stableHash(path) % UInt64(idCount)) }",
     "static func preferredID(path: String) -> Int { Int(UInt64(truncatingIfNeeded: path.hashValue) % UInt64(idCount)) }",
     "PicsumRouteTests.idsAreTheSameLiteralNumbersInTwoProcesses"),
    # Ranges and conditionals.
    ("range-end-off-by-one", "Sources/HTTP/Semantics/RangeRequest.swift",
     "ranges.append(a..<(end + 1))",
     "ranges.append(a..<end)",
     "RangeRequestTests|RepresentationTests"),
    ("if-range-weak-etag", "Sources/HTTP/Semantics/Representation.swift",
     "            return tag.strongMatches(etag)",
     "            return tag.opaque == etag.opaque",
     "RepresentationTests"),
    ("if-match-weak-comparison", "Sources/HTTP/Semantics/Representation.swift",
     "list.containsStrongMatch(for: etag) else {",
     "list.containsWeakMatch(for: etag) else {",
     "RepresentationTests|ThumbnailsTests"),
    # Cache keys, versions and tiers.
    ("key-without-source-version", "Sources/ThumbdCore/Thumbnails/Identity/ThumbnailIdentity.swift",
     "        versions = ThumbnailKeys.versions(version.tag.text, watermark: request.watermark?.version)",
     "        versions = ThumbnailKeys.versions(\"v\", watermark: request.watermark?.version)",
     "CacheIntegrationTests|LibraryChangeTests"),
    ("disk-entry-body-unchecked", "Sources/Cache/CacheEntryCodec.swift",
     "        guard checksum(data[headerLength...]) == bodyCRC else { return .failure(.corrupt(\"body checksum\")) }",
     "        _ = bodyCRC",
     "DiskCacheTests|CacheIntegrationTests"),
    ("lru-keeps-evicted-values", "Sources/Cache/LRUCache.swift",
     "        nodes[i].value = nil\n",
     "\n",
     "LRUCacheTests"),
    ("purge-prefix-without-separator", "Sources/ThumbdCore/Thumbnails/Source/SourceName.swift",
     "    package var keyPrefix: String { text + \"|\" }",
     "    package var keyPrefix: String { text }",
     "PurgeTests"),
    # Signing and expiry.
    ("signature-prefix-accepted", "Sources/ThumbdProtocol/ConstantTime.swift",
     "        var difference = UInt8(a.count == b.count ? 0 : 1)\n        for i in 0..<max(a.count, b.count) {",
     "        var difference = UInt8(0)\n        for i in 0..<min(a.count, b.count) {",
     "SigningTests"),
    ("expiry-not-checked-on-memoized-targets", "Sources/Thumbd/Routes/ImageRoute.swift",
     "                try authorization.stillValid(memo.expires)\n",
     "",
     "SigningTests"),
    # Limits and SSRF.
    ("ipv4-mapped-allowed", "Sources/ThumbdCore/Remote/AddressPolicy.swift",
     "        if within([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], 96) { return .refused(\"IPv4-mapped\") }\n",
     "",
     "AddressPolicyTests|OriginTests"),
    ("source-pixels-one-row-short", "Sources/Imaging/ImageTransformer.swift",
     "        if header.width * header.height * frames > maxPixels {",
     "        if header.width * (header.height - 1) * frames > maxPixels {",
     "ThumbnailsTests|AnimationAndProgressiveTests"),
    ("padding-not-in-output-size", "Sources/Imaging/OutputGeometry.swift",
     "        width = (quarterTurn ? resizedHeight : resizedWidth) + (options.padding.map { $0.left + $0.right } ?? 0)",
     "        width = (quarterTurn ? resizedHeight : resizedWidth)",
     "ThumbnailServiceTests|WorkingMemoryTests"),
    ("watermark-header-unchecked", "Sources/ThumbdCore/Thumbnails/Stages/TransformStage.swift",
     "                watermark = (bytes, try ImageTransformer.checkedHeader(bytes, maxPixels: limits.maxSourcePixels))",
     "                watermark = (bytes, try ImageHeader.read(bytes))",
     "HostileInputTests"),
    ("frames-unlimited", "Sources/Imaging/ImageTransformer.swift",
     "        if animated && frames > maxFrames {",
     "        if animated && frames > maxFrames * 1000 {",
     "AnimationAndProgressiveTests"),
    # Memory.
    ("memory-budget-never-refuses", "Sources/ThumbdCore/Concurrency/MemoryBudget.swift",
     "        if limit > 0 && bytes > limit {",
     "        if limit > 0 && bytes > limit * 1000 {",
     "MemoryBudgetTests|ThumbnailServiceTests"),
    ("memory-budget-ignores-limit", "Sources/ThumbdCore/Concurrency/MemoryBudget.swift",
     "func fits(_ bytes: Int, limit: Int) -> Bool { limit == 0 || running == 0 || usage.reserved + bytes <= limit }",
     "func fits(_ bytes: Int, limit: Int) -> Bool { true }",
     "MemoryBudgetTests|ThumbnailServiceTests"),
    ("cgroup-limit-ignored", "Sources/Thumbd/Config/SystemMemory.swift",
     "        if let limit = cgroupLimit, machineBytes.map({ limit.bytes < $0 }) ?? true {",
     "        if let limit = cgroupLimit, false, machineBytes.map({ limit.bytes < $0 }) ?? true {",
     "SystemMemoryTests"),
    # Work nobody wants, coalescing.
    ("transform-not-stopped", "Sources/ThumbdCore/Thumbnails/Stages/TransformStage.swift",
     "                                                  watermark: transform.watermark, shared: shared, stop: stop)",
     "                                                  watermark: transform.watermark, shared: shared, stop: nil)",
     "RunawayTransformTests"),
    ("joining-miss-runs-its-own", "Sources/ThumbdCore/Concurrency/SingleFlight.swift",
     "            if map[key] != nil {\n                map[key]!.append(waiter)",
     "            if map[key] != nil && false {\n                map[key]!.append(waiter)",
     "ThumbnailServiceTests|CacheIntegrationTests"),
    ("store-down-on-one-subject", "Sources/ThumbdCore/Originals/StoreHealth.swift",
     "            guard downSince == nil, failingCount(at: now, slowAfter: slowAfter) >= failuresToOpen else { return .none }",
     "            guard downSince == nil, failingCount(at: now, slowAfter: slowAfter) >= 1 else { return .none }",
     "StoreHealthTests"),
    ("transfer-rate-not-judged", "Sources/ThumbdCore/Transfers/TransferPace.swift",
     "        guard headSeen, limits.minRate > 0 else { return .going }",
     "        guard headSeen, limits.minRate > 0, false else { return .going }",
     "TransferPaceTests"),
    ("vectors-read-in-process", "Sources/CVipsShim/vipsshim.c",
     "    return !vectors_allowed && is_vector_loader(loader);",
     "    (void)loader;\n    return 0;",
     "InputFormatsTests"),
    # Originals that can run script.
    ("svg-served-without-sandbox", "Sources/Thumbd/Presentation/ImageFields.swift",
     "        Self.activeContentTypes.contains(contentType) ? sandboxedHeaders : headers",
     "        headers",
     "ActiveContentBrowserTests"),
    # The shared tier.
    ("shared-hit-not-kept-locally", "Sources/ThumbdCore/Thumbnails/Tiers/VariantStore.swift",
     "        guard let variant = shared?.variant(key, sourcePrefix: sourcePrefix) else { return nil }\n        store(key, variant)",
     "        guard let variant = shared?.variant(key, sourcePrefix: sourcePrefix) else { return nil }",
     "SharedTierTests/aThumbnailMadeOnOneReplica"),
    ("disk-purge-before-index-misses-files", "Sources/Cache/DiskCache.swift",
     "        let entries = isIndexed ? tables.withLock { $0.index.keys }.map { ($0, filePath(for: $0)) }\n"
     "            : Self.entryFiles(in: directoryPath).map { ($0.hash, $0.path) }",
     "        let entries = tables.withLock { $0.index.keys }.map { ($0, filePath(for: $0)) }",
     "DiskCacheTests|SharedTierTests/aReplicaThatWasDown"),
    ("shared-purge-not-followed", "Sources/ThumbdCore/Purge/SharedPurges.swift",
     "            if withKept({ $0.applied.contains(record) }) { continue }",
     "            continue",
     "SharedTierTests/aPurgeAtOneReplica|SharedTierTests/aReplicaThatWasDown"),
    # The client's resume.
    ("resume-without-if-range", "Sources/ThumbdKit/Pipeline/Download.swift",
     "            request.setValue(ifRange, forHTTPHeaderField: \"If-Range\")",
     "            _ = ifRange",
     "ResumeTests"),
    # Streamed bodies (issue 35).
    ("stream-reader-never-cancels", "Sources/HTTP/Messages/BodyStream.swift",
     "        deinit { stream.cancel() }",
     "        deinit { }",
     "StreamedBodyTests.nobodyReadingStopsTheProducer"),
    ("stream-push-never-waits", "Sources/HTTP/Messages/BodyStream.swift",
     "        while !cancelled && buffered > 0 && buffered + bytes.count > capacity {",
     "        while false {",
     "BodyStreamTests.aFullStreamTakesNoMoreUntilItIsEmptied"),
    # Faces (issue 36).
    ("redaction-skipped", "Sources/Imaging/ImageTransformer.swift",
     "                for face in faces {",
     "                for face in faces.prefix(0) {",
     "FaceTests.redactionHidesTheFaceAtEverySizeAndLeavesTheRest"),
    ("face-crop-ignores-faces", "Sources/Imaging/FaceLayout.swift",
     "        if let focus = focus(for: faces, width: width, height: height) {",
     "        if let focus = focus(for: [], width: width, height: height) {",
     "FaceTests.aFaceCropKeepsTheWholeFaceAtEveryAspectRatio"),
    ("faces-kept-nowhere", "Sources/ThumbdCore/Thumbnails/Tiers/VariantStore.swift",
     "        variant(key).flatMap { FoundFaces(entry: $0.variant) }",
     "        variant(CacheKey(\"-\")).flatMap { FoundFaces(entry: $0.variant) }",
     "FaceTests.oneDetectionServesEverySizeTheInfoAndARestart"),
    ("crowd-faces-capped", "Sources/Faces/FaceDetector.swift",
     "            if Int(count) <= found.count { return found.prefix(Int(count)) }",
     "            return found.prefix(min(Int(count), found.count))",
     "FaceRedactionTests.everyFaceOfACrowdIsReturned"),
    # The CNN face detector (issue 52).
    ("face-boxes-in-stored-pixels", "Sources/Faces/FaceDetector.swift",
     "        let (width, height) = header.orientedSize",
     "        let (width, height) = (header.width, header.height)",
     "FaceDetectorTests.theBoxesAreInTheUprightPixelsOfATurnedPhoto"),
    ("cnn-min-score-ignored", "Sources/CFaceShim/yunet.cpp",
     "                if (score < min_score) continue;",
     "                if (score < 0.05f) continue;",
     "FaceDetectorTests"),
    ("cnn-boxes-not-merged", "Sources/CFaceShim/yunet.cpp",
     "        cv::dnn::NMSBoxes(boxes, scores, 0.0f, kOverlapLimit, kept);",
     "        for (size_t i = 0; i < boxes.size(); i++) kept.push_back(static_cast<int>(i));",
     "FaceDetectorTests"),
    ("model-checksum-skipped", "Sources/Faces/FaceDetector.swift",
     "        guard digest == Self.modelSHA256 else {",
     "        guard digest == digest else {",
     "FaceDetectorTests.aMissingOrWrongModelStopsTheDetectorBeingMade"),
    # The CDN in front (issue 53).
    ("gallery-page-not-kept", "Sources/Thumbd/Routes/GalleryRoute.swift",
     "            if let kept = pages.kept(page: page, selftest: selftest, fingerprint: snapshot.fingerprint) {",
     "            if false, let kept = pages.kept(page: page, selftest: selftest, fingerprint: snapshot.fingerprint) {",
     "ListingTests"),
    ("large-release-always-hands-back", "Sources/ThumbdCore/Concurrency/MemoryBudget.swift",
     "        let large = bytes >= Self.handBackBytes && handBackLarge()",
     "        let large = bytes >= Self.handBackBytes",
     "MemoryBudgetTests"),
    ("idle-hook-not-delayed", "Sources/ThumbdCore/Concurrency/WorkerPool.swift",
     "            let stillIdle = state.withLock { s in !s.stopped && s.started == started && s.running == 0 && s.waiting == 0 }",
     "            let stillIdle = true",
     "WorkerPoolTests"),
    ("gathered-send-out-of-order", "Sources/HTTPServer/Connection.swift",
     "            return gatherAndSend(from: index + 1, to: end, &vectors, flags: flags)",
     "            if vectors.count == 3 { vectors.swapAt(1, 2) }\n            return gatherAndSend(from: index + 1, to: end, &vectors, flags: flags)",
     "ConnectionTests"),
    ("cdn-purge-skipped", "Sources/ThumbdCore/Purge/SourcePurge.swift",
     "        outcome.cdn = cdn?.purge(tags: [target.cdnTag(in: library)])",
     "        outcome.cdn = nil",
     "CDNTaggingTests"),
    ("cdn-tags-without-folders", "Sources/ThumbdCore/CDN/SurrogateKeys.swift",
     "        folders(of: source).map(folderTag) + [sourceTag(source)]",
     "        [sourceTag(source)]",
     "SurrogateKeysTests|CDNTaggingTests"),
    ("cdn-refusal-retried", "Sources/ThumbdCore/CDN/CDNPurge.swift",
     "            case .status(let status): status >= 500 || status == 429",
     "            case .status: true",
     "CDNPurgeRequestTests"),
    ("faces-key-ignores-model", "Sources/ThumbdCore/Thumbnails/Identity/ThumbnailKeys.swift",
     '(model == "haar" ? "faces1" : "faces-" + model)',
     '"faces1"',
     "ThumbnailKeysTests"),
    # Video (issue 37).
    ("poster-black-frames-kept", "Sources/Imaging/FrameStill.swift",
     "        return count == 0 || total / (count * 3) < 16",
     "        return count == 0",
     "VideoRouteTests.theDefaultPosterSkipsABlackStart"),
    ("poster-percent-as-seconds", "Sources/ThumbdCore/Thumbnails/Source/VideoStills.swift",
     "        case .percent(let p): .fraction(p / 100)",
     "        case .percent(let p): .seconds(p)",
     "VideoRouteTests.thePosterIsTheFrameAtTheTimeAsked"),
    ("poster-rotation-ignored", "Sources/Imaging/FrameStill.swift",
     "            if orientation != 1 { image = try ImageSynthesis.withOrientation(image, orientation) }",
     "            _ = orientation",
     "VideoRouteTests.aTurnedVideoGivesAnUprightPosterAndFacts"),
    ("s3-video-read-whole", "Sources/ThumbdCore/Originals/RangedReads.swift",
     "        let first = index * Self.blockSize, last = min(length, first + Self.blockSize) - 1",
     "        let first = 0, last = length - 1",
     "S3LibraryTests.aPosterReadsOnlyTheRangesItsFrameNeeds"),
    ("origin-video-refused", "Sources/ThumbdCore/Remote/RemoteSource.swift",
     "        refusedWhole ? originals.videoReader(url) : nil",
     "        nil",
     "VideoRouteTests.aLargeRemoteVideoIsReadByRanges"),
    ("video-stills-per-thumbnail", "Sources/ThumbdCore/Thumbnails/Stages/VideoStillStage.swift",
     "            let kind = VideoStills.kind(of: item.request.identity(of: name, at: version).options)",
     "            let kind = VideoStills.Kind.poster(.seconds(Double(groups.count) / 1000))",
     "VideoStillsServiceTests"),
    ("orc-guard-not-exported", "Sources/CProcessGuards/orcguard.c",
     "int orc_program_compile(void *program) {",
     '__attribute__((visibility("hidden"))) int orc_program_compile(void *program) {',
     "BinaryLinkTests"),
    ("printf-hooks-not-refused", "Sources/CProcessGuards/printfhooks.c",
     "int register_printf_type(printf_va_arg_function *fetch) {",
     '__attribute__((visibility("hidden"))) int register_printf_type(printf_va_arg_function *fetch) {',
     "BinaryLinkTests|PrintfHooksTests"),
    ("jpeg-scratch-not-exported", "Package.swift",
     '''"-Xlinker", "--export-dynamic-symbol=jpeg_get_large",
                                               "-Xlinker", "--export-dynamic-symbol=jpeg_free_large",
''',
     '',
     "BinaryLinkTests"),
    ("jpeg-scratch-over-capacity", "Sources/CProcessGuards/jpegscratch.c",
     "while (pool->kept_bytes + length > pool->capacity || pool->kept[PG_SCRATCH_SLOTS - 1]) {",
     "while (pool->kept[PG_SCRATCH_SLOTS - 1]) {",
     "DecoderScratchTests"),
    ("jpeg-scratch-any-size", "Sources/CProcessGuards/jpegscratch.c",
     "if (have >= length && have / 2 <= length",
     "if (have >= length",
     "DecoderScratchTests"),
    ("worker-pool-idle-between-jobs", "Sources/ThumbdCore/Concurrency/WorkerPool.swift",
     "return s.running == 0 && s.waiting == 0",
     "return s.running == 0",
     "WorkerPoolTests"),
    # q=auto (issue 54).
    ("auto-quality-answers-last-tried", "Sources/Imaging/QualitySearch.swift",
     "let chosen = passed ?? tried.max { $0.quality < $1.quality }!",
     "let chosen = tried.last!",
     "QualitySearchTests"),
    ("auto-quality-past-ceiling", "Sources/Imaging/QualitySearch.swift",
     "var next = min(ceiling, max(floor, start))",
     "var next = max(floor, start)",
     "QualitySearchTests|AutoQualityTests"),
    ("distance-one-scale", "Sources/Imaging/PerceptualDistance.swift",
     "let last = scale == weights.count - 1 || width / 2 < 8 || height / 2 < 8",
     "let last = true",
     "PerceptualDistanceTests"),
    ("auto-quality-key-without-target", "Sources/ThumbdCore/Thumbnails/Identity/TransformOptions+KeyText.swift",
     "parts.append(\"q=\\(autoQuality?.keyText ?? quality.map(String.init) ?? \"-\")\")",
     "parts.append(\"q=\\(autoQuality != nil ? \"auto\" : quality.map(String.init) ?? \"-\")\")",
     "AutoQualityTests"),
]


# A mutated test run that hangs (a waiter a broken single-flight never answers) has caught
# the mutation too; it is stopped after this long.
TEST_TIMEOUT = 300


def run(command, cwd, log, timeout=None):
    """The command's status; None when it ran out of time (and was killed)."""
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
            return None


def sync_tree():
    """The working tree's sources into the scratch copy (its build folder kept)."""
    os.makedirs(TREE, exist_ok=True)
    # What the tests read besides the sources: the scripts that start stores and clusters, the
    # deploy files, the configuration and the documents.
    for entry in ["Package.swift", "Dockerfile", "Sources", "Plugins", "Tests", "scripts", "deploy", "config", "docs", "README.md"]:
        src, dst = os.path.join(ROOT, entry), os.path.join(TREE, entry)
        if os.path.isdir(src):
            subprocess.check_call(["rsync", "-a", "--delete", src + "/", dst + "/"])
        else:
            shutil.copy2(src, dst)
    # The face tests' photographs, the face model and the demo's media, fetched into the
    # tree's own build folder once.
    for script in ["face-photos.sh", "face-model.sh", "demo-media.sh"]:
        subprocess.check_call([os.path.join(TREE, "scripts", script)], cwd=TREE)


def main():
    wanted = sys.argv[1:]
    chosen = [m for m in MUTATIONS if not wanted or m[0] in wanted]
    if wanted and len(chosen) != len(wanted):
        sys.exit("mutation-check: unknown mutation in %s" % wanted)
    sync_tree()
    log = os.path.join(SCRATCH, "build.log")
    started = time.time()
    print("mutation-check: building the scratch copy ...", flush=True)
    if run(["swift", "build", "--build-tests"], TREE, log) != 0:
        sys.exit("mutation-check: the unmutated tree does not build (see %s)" % log)
    survived, broken = [], []
    # Each filter's tests must pass unmutated, or a failure would not be the mutation's.
    for tests in sorted(set(m[4] for m in chosen)):
        log = os.path.join(SCRATCH, "baseline.log")
        if run(["swift", "test", "--skip-build", "--filter", tests], TREE, log, timeout=TEST_TIMEOUT) != 0:
            sys.exit("mutation-check: the tests %s fail without a mutation (see %s)" % (tests, log))
    print("mutation-check: every filter's tests pass unmutated", flush=True)
    for name, path, text, replacement, tests in chosen:
        file = os.path.join(TREE, path)
        original = open(file).read()
        count = original.count(text)
        if count != 1:
            broken.append(name)
            print("%-40s OUT OF DATE: the text occurs %d times in %s" % (name, count, path), flush=True)
            continue
        t0 = time.time()
        try:
            open(file, "w").write(original.replace(text, replacement))
            log = os.path.join(SCRATCH, name + ".log")
            if run(["swift", "build", "--build-tests"], TREE, log) != 0:
                broken.append(name)
                verdict = "DOES NOT BUILD (see %s)" % log
            else:
                status = run(["swift", "test", "--skip-build", "--filter", tests], TREE, log, timeout=TEST_TIMEOUT)
                verdict = "caught" if status is not None and status != 0 else "caught (the tests hung)" if status is None else None
            if verdict is None:
                survived.append(name)
                verdict = "SURVIVED"
        finally:
            open(file, "w").write(original)
        print("%-40s %-10s %4.0fs  (%s)" % (name, verdict, time.time() - t0, tests), flush=True)
    # Leave the scratch build matching the sources.
    run(["swift", "build", "--build-tests"], TREE, os.path.join(SCRATCH, "build.log"))
    total = len(chosen)
    print("mutation-check: %d of %d caught, %d survived, %d out of date or not building; %.0f s"
          % (total - len(survived) - len(broken), total, len(survived), len(broken), time.time() - started))
    if survived or broken:
        print("mutation-check: survived: %s; broken: %s" % (", ".join(survived) or "none", ", ".join(broken) or "none"))
        sys.exit(1)


if __name__ == "__main__":
    main()
