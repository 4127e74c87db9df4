import Cache
import Foundation
import HTTP
import HTTPServer
import ThumbdCore
import WireCoding

/// `GET /`: an HTML gallery of the library. A responsive grid of square thumbnails
/// (lazy, with width and height, 1x and 2x candidates), each opening a large view with
/// previous/next and keyboard navigation; pages of 60; below it, how to use the library as
/// Lorem Picsum (`GalleryPicsumSection`). No external assets; URLs are signed when signing is on.
///
/// Each page is made once per library snapshot (`GalleryPages`) and answered with an ETag.
///
/// `?selftest=1` adds a script that reports, in `<pre id="selftest">`, which thumbnails
/// loaded and at which candidate, and whether the large view opens: the browser test reads
/// it with headless Chromium's --dump-dom.
struct GalleryRoute: Sendable {
    let index: LibraryIndex
    let pool: WorkerPool
    let links: ImageLinks
    /// Nil with `picsum.enabled: false`.
    let picsum: PicsumCatalogs?
    /// Pages made, kept per snapshot.
    let pages = GalleryPages()
    static let perPage = 60
    /// The page around the grid: `Assets/gallery.html`, embedded at build time (`GalleryHTML`).
    static let template = PageTemplate(GalleryHTML.text)
    static let cell = 240

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let query = (try? QueryParameters(parsing: request.query)) ?? QueryParameters.empty
        let page = query.pairs.first { $0.name == "page" }.flatMap { Int($0.value) }.map { max(1, $0) } ?? 1
        let selftest = query.pairs.contains { $0.name == "selftest" && $0.value == "1" }
        // A page made for the current snapshot is answered here, as a hit is; so is the last
        // page while another asker walks the library again, so a walk never queues a crowd.
        if let snapshot = index.fresh() {
            if let kept = pages.kept(page: page, selftest: selftest, fingerprint: snapshot.fingerprint) {
                return responder.respond(kept.response(to: request))
            }
        } else if let kept = pages.keptWhileRefreshing(page: page, selftest: selftest) {
            return responder.respond(kept.response(to: request))
        }
        pages.refreshing()
        let accepted = pool.submit { [index, links, picsum, pages] in
            defer { pages.refreshed() }
            let snapshot: LibraryIndex.Snapshot
            do {
                snapshot = try index.current()
            } catch {
                return responder.respond(Problems.response(for: error))
            }
            let pageCount = Self.pageCount(snapshot)
            let key = GalleryPages.Key(page: min(page, pageCount), selftest: selftest)
            let made = pages.kept(page: key.page, selftest: selftest, fingerprint: snapshot.fingerprint)
                ?? pages.keep(Self.representation(snapshot, key, links: links, picsum: picsum.map { $0.catalog(of: snapshot) }),
                              key, fingerprint: snapshot.fingerprint, pageCount: pageCount)
            responder.respond(made.response(to: request))
        }
        if !accepted {
            pages.refreshed()
            // No worker free to walk the folder: the last page kept rather than a 503, as a
            // cache serves stale while it cannot revalidate.
            if let kept = pages.kept(page: page, selftest: selftest, fingerprint: nil) {
                return responder.respond(kept.response(to: request))
            }
            responder.respond(Overloaded().response)
        }
    }

    /// A page as HTML with its validator: the ETag names the snapshot, the page and whether
    /// links are signed, so a browser's revalidation is a 304 until the library changes.
    static func representation(_ snapshot: LibraryIndex.Snapshot, _ key: GalleryPages.Key, links: ImageLinks,
                               picsum: PicsumCatalog?) -> Representation {
        var headers = HTTPHeaders()
        headers.add(.cacheControl, "no-cache")
        // Browsers then send Sec-CH-DPR and Sec-CH-Width with the page's image requests.
        headers.add(.acceptCH, ClientHints.accepted)
        let html = render(snapshot, page: key.page, selftest: key.selftest, links: links, picsum: picsum)
        let etag = EntityTag("g" + StableHash.hex128("\(snapshot.fingerprint)|\(key.page)|\(key.selftest)|\(links.signs)"))
        return Representation(contentType: "text/html; charset=utf-8", body: .text(html), etag: etag, headers: headers)
    }

    static func pageCount(_ snapshot: LibraryIndex.Snapshot) -> Int {
        max(1, (snapshot.items.count + perPage - 1) / perPage)
    }

    /// `0:07`, `1:02:03`: a video's length as players show it.
    static func durationText(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    static func render(_ snapshot: LibraryIndex.Snapshot, page: Int, selftest: Bool, links: ImageLinks,
                       picsum: PicsumCatalog?) -> String {
        let total = snapshot.items.count
        let pages = pageCount(snapshot)
        let current = min(page, pages)
        let items = snapshot.items[min(total, (current - 1) * perPage)..<min(total, current * perPage)]
        var cells = ""
        for (i, item) in items.enumerated() {
            let name = String(item.path.split(separator: "/").last ?? Substring(item.path))
            let square = "w=\(cell)&h=\(cell)&fit=cover"
            let thumb = links.url(item.path, square), thumb2x = links.url(item.path, square + "&dpr=2")
            let large = links.url(item.path, "w=1280&h=1280&fit=contain"), large2x = links.url(item.path, "w=1280&h=1280&fit=contain&dpr=2")
            // A video's tile shows its poster; the viewer plays the original (Range lets it seek).
            let video = item.format.isVideo ? links.url(item.path) : nil
            let length = item.facts.video?.duration.map { " · " + durationText($0) } ?? ""
            let size = "\(item.width)×\(item.height)\(length) · \(humanBytes(item.bytes))"
            cells += """
            <figure class="cell\(video == nil ? "" : " video")"><a href="\(html(video ?? large))" data-index="\(i)" data-large="\(html(large))" data-large2x="\(html(large2x))" \
            \(video.map { "data-video=\"\(html($0))\" " } ?? "")\
            data-name="\(html(name))" data-size="\(html(size))" aria-label="Open \(html(name))">\
            <img src="\(html(thumb))" srcset="\(html(thumb)) 1x, \(html(thumb2x)) 2x" width="\(cell)" height="\(cell)" \
            style="\(html(placeholderStyle(item)))" \
            loading="lazy" decoding="async" alt="\(html(name)), \(item.width) by \(item.height) pixels"></a>\
            <figcaption><span class="name">\(html(name))</span><span class="meta">\(html(size))</span></figcaption></figure>

            """
        }
        let nav = pages > 1 ? """
            <nav class="pages" aria-label="Pages">\
            \(current > 1 ? "<a href=\"/?page=\(current - 1)\" rel=\"prev\">← Previous</a>" : "<span></span>")\
            <span>Page \(current) of \(pages)</span>\
            \(current < pages ? "<a href=\"/?page=\(current + 1)\" rel=\"next\">Next →</a>" : "<span></span>")</nav>
            """ : ""
        let body = total == 0
            ? "<p class=\"empty\">No images yet. Put some in the library folder.</p>"
            : "<main class=\"grid\">\n\(cells)</main>\n\(nav)"
        return template.filled([
            "count": "\(total) image\(total == 1 ? "" : "s")",
            "picsum_anchor": GalleryPicsumSection.anchor,
            "grid": body,
            "picsum": GalleryPicsumSection.render(picsum, links: links),
            "selftest": selftest ? "true" : "false",
            "probe_url": jsonString(selftestProbe(snapshot, links)),
        ])
    }

    /// Until its thumbnail arrives, a cell shows the image's placeholder (its ThumbHash rendered
    /// as a tiny PNG, stretched and blurred by the browser's scaling) over its average colour, so
    /// a fast scroll shows colours and shapes rather than empty boxes.
    static func placeholderStyle(_ item: LibraryIndex.Item) -> String {
        let image = item.placeholderImage.isEmpty ? "" : "url(\(item.placeholderImage)) center / cover no-repeat, "
        return "background: \(image)\(item.facts.color)"
    }

    /// The first image at 100 px wide with `dpr=auto`, for the self-test ("" without images).
    static func selftestProbe(_ snapshot: LibraryIndex.Snapshot, _ links: ImageLinks) -> String {
        guard let first = snapshot.items.first(where: { $0.width >= 400 }) ?? snapshot.items.first else { return "" }
        return links.url(first.path, "w=100&dpr=auto&fm=png")
    }

    static func jsonString(_ s: String) -> String { JSONBody.quoted(s) }

    static func html(_ s: String) -> String { MarkupText.escaped(s) }

    static func humanBytes(_ n: Int64) -> String {
        if n >= 1 << 20 { return String(format: "%.1f MB", Double(n) / 1_048_576) }
        if n >= 1 << 10 { return "\(n >> 10) KB" }
        return "\(n) B"
    }
}
