import Foundation
import ThumbdCore

/// `thumbd-fuzz`: the fuzz targets in one binary, chosen with THUMBD_FUZZ_TARGET.
///
/// Built for fuzzing (`make fuzz`: -DFUZZING, coverage instrumentation and libFuzzer's
/// library without its main) it hands its arguments to libFuzzer. Built normally, it runs
/// the files and folders named on the command line through the target once each: how
/// `make test` replays the kept corpus (Tests/Fuzz/corpus) as regression inputs.
@main
struct FuzzMain {
    static func main() {
        guard let target = selectedTarget else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("thumbd-fuzz: set THUMBD_FUZZ_TARGET to one of \(names)\n".utf8))
            exit(2)
        }
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
        #else
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                target.run(Array(data))
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs replayed, no failure")
        #endif
    }

    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}

let selectedTarget = ProcessInfo.processInfo.environment["THUMBD_FUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:))

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

let fuzzOne: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
    selectedTarget?.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#endif
