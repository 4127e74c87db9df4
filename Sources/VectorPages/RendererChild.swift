import CSystem
import Glibc
import Imaging

/// The renderer process itself (`thumbd render-vectors`, started by `VectorRenderer`): reads
/// `RenderRequest`s on stdin and answers each on stdout until stdin closes. Before the first,
/// it loads what drawing needs (librsvg, poppler, fonts), then locks itself in: hard limits
/// on its address space and CPU time that nothing can raise, no file grown, and a seccomp
/// filter (no socket, no program, no other process, no signal to another, no limit set, no
/// file opened for writing or changed); no core file, first in line for the OOM killer, its
/// standard error thrown away. Before each document the server sets the CPU time and memory
/// it may spend on it (`csys_limit_child`). Whatever a document does, it does here.
public enum RendererChild {
    /// `maxGrowth`: bytes its address space may ever grow by past its start; `maxCPUSeconds`:
    /// the CPU time of its whole life (the server retires it well before).
    public static func run(maxGrowth: Int, maxCPUSeconds: Double) -> Never {
        csys_child_prepare()
        VectorDrawing.allowInThisProcess()
        warmUp()
        let locked = csys_child_lock(UInt64(max(0, maxGrowth)), maxCPUSeconds) == 0
        let sandboxed = csys_sandbox() == 0
        let hello = RenderReply(outcome: .ready, body: Array((locked && sandboxed ? "seccomp" : "unlocked").utf8))
        guard Pipe.write(1, hello.frame) else { exit(1) }
        while true {
            // End of input: the server closed its side (it stopped, or let this renderer go).
            guard let head = Pipe.read(0, count: RenderRequest.headLength) else { exit(0) }
            guard let (request, length) = RenderRequest.parse(head: head) else { exit(2) }
            guard let document = Pipe.read(0, count: length) else { exit(0) }
            var asked = request
            asked.document = document
            guard Pipe.write(1, answer(asked).frame) else { exit(0) }
        }
    }

    /// One request's reply.
    static func answer(_ request: RenderRequest) -> RenderReply {
        do throws(ImagingError) {
            switch request.operation {
            case .header:
                var header = try ImageHeader.read(request.document)
                guard header.isVector else { return RenderReply(outcome: .unsupported) }
                if request.page > 1 {
                    guard request.page <= header.pages else { return RenderReply(outcome: .noSuchPage, pages: header.pages) }
                    let pages = header.pages
                    header = try ImageHeader.read(request.document, page: request.page)
                    header.pages = pages
                }
                return RenderReply(outcome: .ok, width: header.width, height: header.height, pages: header.pages,
                                   bands: header.bands, hasAlpha: header.hasAlpha, loader: header.loader)
            case .draw:
                let drawn = try VectorDrawing.draw(request.document, page: request.page, scale: request.scale,
                                                   maxPixels: request.maxPixels)
                return RenderReply(outcome: .ok, width: drawn.width, height: drawn.height, pages: 1, bands: 4, hasAlpha: true,
                                   loader: "tiffload_buffer", body: drawn.tiff)
            case .checkSandbox:
                var report = [CChar](repeating: 0, count: 1024)
                csys_sandbox_report(&report, report.count)
                return RenderReply(outcome: .ok, body: Array(String(cString: report).utf8))
            }
        } catch {
            switch error {
            case .unsupportedFormat: return RenderReply(outcome: .unsupported)
            case .tooManyPixels(let width, let height, _): return RenderReply(outcome: .tooManyPixels, width: width, height: height)
            default: return RenderReply(outcome: .undecodable, body: Array("\(error)".utf8))
            }
        }
    }

    /// Draws a small SVG with text and a one-page PDF with text, so the libraries, fonts and
    /// their caches are loaded before the sandbox and the limits go on.
    static func warmUp() {
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><text x="1" y="12" font-size="10">Ag</text></svg>"#.utf8)
        _ = try? VectorDrawing.draw(svg, page: 1, scale: 1, maxPixels: 1 << 20)
        _ = try? VectorDrawing.draw(WarmUpDocument.pdf, page: 1, scale: 1, maxPixels: 1 << 20)
    }
}

/// A one-page PDF with a line of text (Helvetica, so poppler loads its fonts), its
/// cross-reference table's offsets counted for exactly these bytes.
enum WarmUpDocument {
    static let pdf = Array("""
        %PDF-1.4
        1 0 obj
        << /Type /Catalog /Pages 2 0 R >>
        endobj
        2 0 obj
        << /Type /Pages /Kids [3 0 R] /Count 1 >>
        endobj
        3 0 obj
        << /Type /Page /Parent 2 0 R /MediaBox [0 0 32 16] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>
        endobj
        4 0 obj
        << /Length 35 >>
        stream
        BT /F1 10 Tf 1 4 Td (Ag) Tj ET
        endstream
        endobj
        5 0 obj
        << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>
        endobj
        xref
        0 6
        0000000000 65535 f 
        0000000009 00000 n 
        0000000058 00000 n 
        0000000115 00000 n 
        0000000239 00000 n 
        0000000319 00000 n 
        trailer
        << /Size 6 /Root 1 0 R >>
        startxref
        389
        %%EOF
        """.utf8)
}
