// thumbd-scroll: simulates a phone scrolling a grid of a thumbd library on a modelled link,
// and compares a naive client with ThumbdKit (originals, then thumbnails). See ScrollTool.
import Foundation

@MainActor
func runTool() async -> Int32 {
    do {
        let options = try ScrollOptions.parse(Array(CommandLine.arguments.dropFirst()))
        return await ScrollTool(options: options).run()
    } catch ScrollOptions.UsageError.help {
        print(ScrollOptions.usage)
        return 0
    } catch {
        FileHandle.standardError.write(Data("thumbd-scroll: \(error)\n\n\(ScrollOptions.usage)\n".utf8))
        return 2
    }
}

// exit(3) flushes standard output's buffer.
exit(await runTool())
