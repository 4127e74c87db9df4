import Foundation
import HTTP
import HTTPServer
import ThumbdCore

/// `GET /`: an HTML gallery of the library. A responsive grid of square thumbnails
/// (lazy, with width and height, 1x and 2x candidates), each opening a large view with
/// previous/next and keyboard navigation; pages of 60; below it, how to use the library as
/// Lorem Picsum (`GalleryPicsumSection`). No external assets; URLs are signed when signing is on.
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
    static let perPage = 60
    static let cell = 240

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let query = (try? QueryParameters(parsing: request.query)) ?? QueryParameters.empty
        let page = query.pairs.first { $0.name == "page" }.flatMap { Int($0.value) }.map { max(1, $0) } ?? 1
        let selftest = query.pairs.contains { $0.name == "selftest" && $0.value == "1" }
        let accepted = pool.submit { [index, links, picsum] in
            let snapshot: LibraryIndex.Snapshot
            do {
                snapshot = try index.current()
            } catch {
                return responder.respond(Problems.response(for: error))
            }
            var headers = HTTPHeaders()
            headers.add(.contentType, "text/html; charset=utf-8")
            headers.add(.cacheControl, "no-cache")
            // Browsers then send Sec-CH-DPR and Sec-CH-Width with the page's image requests.
            headers.add(.acceptCH, ClientHints.accepted)
            let html = Self.render(snapshot, page: page, selftest: selftest, links: links,
                                   picsum: picsum.map { $0.catalog(of: snapshot) })
            responder.respond(HTTPResponse(headers: headers, body: .text(html)))
        }
        if !accepted { responder.respond(Overloaded().response) }
    }

    static func render(_ snapshot: LibraryIndex.Snapshot, page: Int, selftest: Bool, links: ImageLinks,
                       picsum: PicsumCatalog?) -> String {
        let total = snapshot.items.count
        let pages = max(1, (total + perPage - 1) / perPage)
        let current = min(page, pages)
        let items = snapshot.items[min(total, (current - 1) * perPage)..<min(total, current * perPage)]
        var cells = ""
        for (i, item) in items.enumerated() {
            let name = String(item.path.split(separator: "/").last ?? Substring(item.path))
            let square = "w=\(cell)&h=\(cell)&fit=cover"
            let thumb = links.url(item.path, square), thumb2x = links.url(item.path, square + "&dpr=2")
            let large = links.url(item.path, "w=1280&h=1280&fit=contain"), large2x = links.url(item.path, "w=1280&h=1280&fit=contain&dpr=2")
            let size = "\(item.width)×\(item.height) · \(humanBytes(item.bytes))"
            cells += """
            <figure class="cell"><a href="\(html(large))" data-index="\(i)" data-large="\(html(large))" data-large2x="\(html(large2x))" \
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
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>thumbd gallery</title>
        <style>
        :root { color-scheme: light dark; --bg: #f5f5f7; --fg: #1d1d1f; --muted: #6e6e73; --card: #fff; --accent: #0a66ff; }
        @media (prefers-color-scheme: dark) { :root { --bg: #111113; --fg: #f5f5f7; --muted: #a1a1a6; --card: #1c1c1f; } }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
        header { display: flex; align-items: baseline; justify-content: space-between; gap: 1rem; padding: 1.25rem clamp(1rem, 3vw, 2rem) .5rem; }
        h1 { margin: 0; font-size: 1.35rem; letter-spacing: -.01em; }
        header p { margin: 0; color: var(--muted); font-size: .9rem; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: clamp(.5rem, 1.5vw, 1rem); padding: .75rem clamp(1rem, 3vw, 2rem) 1.5rem; }
        .cell { margin: 0; background: var(--card); border-radius: 12px; overflow: hidden; box-shadow: 0 1px 2px rgb(0 0 0 / .08); }
        .cell a { display: block; outline-offset: -3px; }
        .cell a:focus-visible { outline: 3px solid var(--accent); }
        .cell img { display: block; width: 100%; height: auto; aspect-ratio: 1; object-fit: cover; background: #8882; transition: transform .2s; }
        .cell a:hover img { transform: scale(1.03); }
        figcaption { display: flex; flex-direction: column; padding: .45rem .6rem .55rem; min-width: 0; }
        .name { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .meta { color: var(--muted); font-size: .8rem; }
        .pages { display: flex; justify-content: space-between; align-items: center; padding: 0 clamp(1rem, 3vw, 2rem) 2rem; color: var(--muted); }
        .pages a { color: var(--accent); text-decoration: none; font-weight: 600; }
        .empty { padding: 3rem 2rem; color: var(--muted); }
        dialog { border: 0; padding: 0; background: transparent; max-width: 100vw; max-height: 100vh; width: 100vw; height: 100vh; }
        dialog::backdrop { background: rgb(0 0 0 / .88); }
        .viewer { display: grid; grid-template-rows: 1fr auto; height: 100%; color: #f5f5f7; }
        .stage { display: flex; align-items: center; justify-content: center; min-height: 0; padding: 3rem 3.5rem .5rem; }
        .stage img { max-width: 100%; max-height: 100%; object-fit: contain; border-radius: 6px; }
        .bar { display: flex; align-items: center; justify-content: center; gap: 1rem; padding: .75rem 1rem 1.25rem; }
        .bar .caption { min-width: 0; text-align: center; }
        .bar .meta { color: #a1a1a6; }
        dialog button { font: inherit; color: #f5f5f7; background: rgb(255 255 255 / .14); border: 0; border-radius: 999px; padding: .55rem .9rem; cursor: pointer; }
        dialog button:hover, dialog button:focus-visible { background: rgb(255 255 255 / .28); outline: none; }
        .close { position: absolute; top: .75rem; right: .75rem; }
        header a { color: var(--accent); text-decoration: none; }
        .picsum { max-width: 60rem; padding: 0 clamp(1rem, 3vw, 2rem) 2.5rem; }
        .picsum h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
        .picsum table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        .picsum th, .picsum td { text-align: left; vertical-align: top; padding: .35rem .6rem .35rem 0; border-top: 1px solid #8883; }
        .picsum td:first-child { white-space: nowrap; }
        .picsum a { color: var(--accent); text-decoration: none; }
        .picsum p { color: var(--muted); font-size: .9rem; }
        @media (max-width: 40rem) { .picsum td:first-child { white-space: normal; word-break: break-all; } }
        </style>
        </head>
        <body>
        <header><h1>Gallery</h1><p>\(total) image\(total == 1 ? "" : "s") · <a href="#\(GalleryPicsumSection.anchor)">Lorem Picsum API</a></p></header>
        \(body)
        \(GalleryPicsumSection.render(picsum, links: links))
        <dialog id="viewer" aria-label="Image viewer">
          <div class="viewer">
            <button class="close" id="close" aria-label="Close">✕</button>
            <div class="stage"><img id="large" alt=""></div>
            <div class="bar">
              <button id="prev" aria-label="Previous image">←</button>
              <div class="caption"><div id="caption-name" class="name"></div><div id="caption-meta" class="meta"></div></div>
              <button id="next" aria-label="Next image">→</button>
            </div>
          </div>
        </dialog>
        <script>
        (() => {
          const links = [...document.querySelectorAll('.cell a')];
          const viewer = document.getElementById('viewer'), large = document.getElementById('large');
          let index = 0, opener = null;
          function show(i) {
            index = (i + links.length) % links.length;
            const a = links[index];
            large.srcset = a.dataset.large + ' 1x, ' + a.dataset.large2x + ' 2x';
            large.src = a.dataset.large;
            large.alt = a.querySelector('img').alt;
            document.getElementById('caption-name').textContent = a.dataset.name;
            document.getElementById('caption-meta').textContent = a.dataset.size;
          }
          function open(i) { opener = links[i]; show(i); if (!viewer.open) viewer.showModal(); document.getElementById('next').focus(); }
          links.forEach((a, i) => a.addEventListener('click', e => { e.preventDefault(); open(i); }));
          document.getElementById('prev').onclick = () => show(index - 1);
          document.getElementById('next').onclick = () => show(index + 1);
          document.getElementById('close').onclick = () => viewer.close();
          viewer.addEventListener('close', () => opener && opener.focus());
          viewer.addEventListener('keydown', e => {
            if (e.key === 'ArrowLeft') { e.preventDefault(); show(index - 1); }
            if (e.key === 'ArrowRight') { e.preventDefault(); show(index + 1); }
          });
          // #view=N opens image N: a link to one image of a page.
          const deep = /^#view=(\\d+)$/.exec(location.hash);
          if (deep && links[+deep[1]]) open(+deep[1]);
          viewer.addEventListener('close', () => { if (location.hash) history.replaceState(null, '', location.pathname + location.search); });
          if (\(selftest ? "true" : "false")) selftest();
          async function selftest() {
            const wait = ms => new Promise(r => setTimeout(r, ms));
            const visible = [...document.querySelectorAll('.cell img')].filter(img => img.getBoundingClientRect().top < innerHeight);
            for (let t = 0; t < 100 && !visible.every(img => img.complete && img.naturalWidth > 0); t++) await wait(100);
            const report = { dpr: devicePixelRatio, images: visible.map(img => ({ src: img.currentSrc, width: img.naturalWidth })) };
            report.placeholders = [...document.querySelectorAll('.cell img')].filter(img => img.style.background.includes('data:image/png')).length;
            // The page sent Accept-CH: an image asking for dpr=auto comes at the device's ratio.
            // Its pixels are counted from the bytes: the answer's Content-DPR makes Chromium
            // report naturalWidth in CSS pixels (the ratio divided out), as it should lay out.
            const probeURL = \(jsonString(selftestProbe(snapshot, links)));
            try {
              const probe = await fetch(probeURL);
              const bitmap = await createImageBitmap(await probe.blob());
              report.autoDPR = { src: probeURL, width: bitmap.width, vary: probe.headers.get('Vary') };
            } catch (e) { report.autoDPR = { src: probeURL, error: String(e) }; }
            if (links.length) {
              links[0].click();
              for (let t = 0; t < 100 && !(large.complete && large.naturalWidth > 0); t++) await wait(100);
              report.viewerOpen = viewer.open;
              report.large = { src: large.currentSrc, width: large.naturalWidth };
              viewer.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
              report.afterArrow = document.getElementById('caption-name').textContent;
            }
            const pre = document.createElement('pre');
            pre.id = 'selftest';
            pre.textContent = JSON.stringify(report);
            document.body.append(pre);
          }
        })();
        </script>
        </body>
        </html>

        """
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

    static func html(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func humanBytes(_ n: Int64) -> String {
        if n >= 1 << 20 { return String(format: "%.1f MB", Double(n) / 1_048_576) }
        if n >= 1 << 10 { return "\(n >> 10) KB" }
        return "\(n) B"
    }
}
