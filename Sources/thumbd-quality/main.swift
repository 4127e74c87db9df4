// thumbd-quality: what `q=auto` does on a folder of photographs (bench/auto_quality.sh).
// For each photograph, grid size (cover) and format it makes the thumbnail as the server does
// at q=80 and at q=auto, measures both against the resized pixels, and finds the limit: the
// lowest quality within the target by an exhaustive sweep of floor...ceiling. Prints one
// tab-separated line per thumbnail, then totals. CPU per thumbnail is the process's (getrusage)
// around the whole transform from the original's bytes, libvips on one thread.
import Foundation
import Imaging
import ThumbdProtocol

struct Row {
    var photo: String, size: Int, format: OutputFormat
    var fixedBytes: Int, fixedDistance: Double, fixedCPU: Double
    var autoQuality: Int, autoBytes: Int, autoDistance: Double, autoEncodes: Int, autoCPU: Double
    var sweepQuality: Int?, sweepBytes: Int?
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("thumbd-quality: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String, _ fallback: String) -> String {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return fallback }
    defer { arguments.removeSubrange(i...(i + 1)) }
    return arguments[i + 1]
}
let sizes = option("--sizes", "150,300,600").split(separator: ",").compactMap { Int($0) }
let formats = option("--formats", "jpeg,webp,avif").split(separator: ",").compactMap { OutputFormat(rawValue: String($0)) }
let auto = AutoQuality(target: Double(option("--target", String(AutoQuality.defaultTarget)))!,
                       floor: Int(option("--floor", String(AutoQuality.defaultFloor)))!,
                       ceiling: Int(option("--ceiling", String(AutoQuality.defaultCeiling)))!,
                       encodes: Int(option("--encodes", String(AutoQuality.defaultEncodes)))!)
let sweeps = option("--sweep", "1") == "1"
guard let folder = arguments.first else { fail("usage: thumbd-quality FOLDER [--sizes 150,300,600] [--formats jpeg,webp,avif] [--target T] [--floor F] [--ceiling C] [--encodes N] [--sweep 0|1]") }
let photos = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".jpg") }.sorted()
guard !photos.isEmpty else { fail("no .jpg in \(folder)") }

print("photo\tsize\tformat\tq80_bytes\tq80_distance\tauto_q\tauto_bytes\tauto_distance\tauto_encodes\tsweep_q\tsweep_bytes")
var rows: [Row] = []
for photo in photos {
    let bytes = [UInt8](FileManager.default.contents(atPath: folder + "/" + photo)!)
    let header = try! ImageHeader.read(bytes)
    for size in sizes {
        // The resized pixels every encoding is measured against: the same transform, lossless.
        let lossless = try! ImageTransformer.transform(bytes, header: header,
                                                       options: TransformOptions(width: size, height: size, fit: .cover, format: .png))
        let pixels = try! VipsImage.decode(lossless.bytes)
        let reference = try! pixels.luma()
        for format in formats {
            var started = cpuSeconds()
            let fixed = try! ImageTransformer.transform(bytes, header: header,
                                                        options: TransformOptions(width: size, height: size, fit: .cover, format: format, quality: 80))
            let fixedCPU = cpuSeconds() - started
            started = cpuSeconds()
            let chosen = try! ImageTransformer.transform(bytes, header: header,
                                                         options: TransformOptions(width: size, height: size, fit: .cover, format: format,
                                                                                   autoQuality: auto))
            let autoCPU = cpuSeconds() - started
            guard let choice = chosen.autoQuality else { fail("no choice for \(photo)") }
            var sweep: (Int, Int)?
            if sweeps {
                for quality in auto.floor...auto.ceiling {
                    let encoded = try! pixels.encode(format, quality: quality)
                    if try! reference.distance(to: encoded) <= auto.target {
                        sweep = (quality, encoded.count)
                        break
                    }
                }
            }
            let row = Row(photo: photo, size: size, format: format, fixedBytes: fixed.bytes.count,
                          fixedDistance: try! reference.distance(to: fixed.bytes), fixedCPU: fixedCPU, autoQuality: choice.quality,
                          autoBytes: chosen.bytes.count, autoDistance: choice.distance, autoEncodes: choice.encodes, autoCPU: autoCPU,
                          sweepQuality: sweep?.0, sweepBytes: sweep?.1)
            rows.append(row)
            print([photo, String(size), format.rawValue, String(row.fixedBytes), String(format: "%.5f", row.fixedDistance),
                   String(row.autoQuality), String(row.autoBytes), String(format: "%.5f", row.autoDistance), String(row.autoEncodes),
                   row.sweepQuality.map(String.init) ?? "-", row.sweepBytes.map(String.init) ?? "-"].joined(separator: "\t"))
        }
    }
}

@MainActor func summary(_ name: String, _ rows: [Row]) {
    let fixed = rows.reduce(0) { $0 + $1.fixedBytes }, chosen = rows.reduce(0) { $0 + $1.autoBytes }
    let met = rows.filter { $0.autoDistance <= auto.target }.count, fixedMet = rows.filter { $0.fixedDistance <= auto.target }.count
    let mean = { (values: [Double]) in values.reduce(0, +) / Double(max(values.count, 1)) }
    var line = "\(name): \(rows.count) thumbnails; bytes q=auto/q=80 \(String(format: "%.3f", Double(chosen) / Double(fixed)))"
        + " (\(chosen) / \(fixed)); within target \(met) (q=80: \(fixedMet));"
        + " distance mean \(String(format: "%.5f", mean(rows.map(\.autoDistance)))) (q=80: \(String(format: "%.5f", mean(rows.map(\.fixedDistance)))))"
        + " worst \(String(format: "%.5f", rows.map(\.autoDistance).max() ?? 0)) (q=80: \(String(format: "%.5f", rows.map(\.fixedDistance).max() ?? 0)))"
    let swept = rows.filter { $0.sweepBytes != nil }
    if !swept.isEmpty {
        let limit = swept.reduce(0) { $0 + $1.sweepBytes! }, ours = swept.reduce(0) { $0 + $1.autoBytes }
        line += "; bytes q=auto/sweep limit \(String(format: "%.3f", Double(ours) / Double(limit))) over the \(swept.count) the sweep could meet"
    }
    line += "; encodes mean \(String(format: "%.2f", mean(rows.map { Double($0.autoEncodes) })))"
        + "; CPU per thumbnail q=auto \(String(format: "%.1f", mean(rows.map(\.autoCPU)) * 1000)) ms, q=80 \(String(format: "%.1f", mean(rows.map(\.fixedCPU)) * 1000)) ms"
        + " (\(String(format: "%.2f", mean(rows.map(\.autoCPU)) / max(mean(rows.map(\.fixedCPU)), 1e-9)))x)"
    print(line)
}
print("")
print("target \(auto.target), qualities \(auto.floor)...\(auto.ceiling), at most \(auto.encodes) encodings")
for format in formats { summary(format.rawValue, rows.filter { $0.format == format }) }
for size in sizes { summary("\(size) px", rows.filter { $0.size == size }) }
summary("all", rows)
let larger = rows.filter { $0.autoBytes > $0.fixedBytes }
print("larger than q=80: \(larger.count) of \(rows.count); of them q=80 was outside the target: \(larger.filter { $0.fixedDistance > auto.target }.count)")
