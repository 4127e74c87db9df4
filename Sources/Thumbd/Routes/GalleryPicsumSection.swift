import Foundation
import ThumbdCore

/// The gallery's "Use thumbd as your own Lorem Picsum" section: the URL forms, with links that
/// work on this library (an image of it as the example, signed when signing is on), what ids
/// are and when they change, the config key, signing, and who made the photographs. Grid apps
/// are often first written against picsum.photos; the page is where their developers look.
/// No scheme or host in it: the page works under any host (and keeps no external assets).
enum GalleryPicsumSection {
    static let title = "Use thumbd as your own Lorem Picsum"
    static let anchor = "picsum"
    static let exampleSeed = "picsum"

    /// `catalog` nil: the routes are off (`picsum.enabled: false`).
    static func render(_ catalog: PicsumCatalog?, links: ImageLinks) -> String {
        guard let catalog else {
            return section("""
            <p>The Lorem Picsum-compatible routes are off here (<code>picsum.enabled: false</code>); \
            with them on, apps written against picsum.photos load this library by changing only the host.</p>
            """)
        }
        // An image with an author shows the most (the demo library's photographs have one).
        let example = catalog.entries.first { !$0.item.facts.author.isEmpty } ?? catalog.entries.first
        let id = example.map { String($0.id) } ?? "{id}"
        let signed = { (target: String) in links.signer?.sign(target) ?? target }
        func link(_ target: String, signing: Bool = true) -> String {
            guard example != nil else { return "<code>\(GalleryRoute.html(target))</code>" }
            let href = signing ? signed(target) : target
            return "<a href=\"\(GalleryRoute.html(href))\"><code>\(GalleryRoute.html(target))</code></a>"
        }
        let rows = [
            (link("/200/300") + "<br>" + link("/200"),
             "a random image, 200&times;300 (<code>/200</code>: square): a <code>302</code> to that image's "
                 + "<code>/id/</code> URL, never stored, so the image itself stays cacheable; <code>?random=N</code> is ignored"),
            (link("/id/\(id)/200/300") + "<br>" + link("/id/\(id)/200"),
             "that image cut from its centre to exactly 200&times;300, enlarged when it is smaller; "
                 + "<code>0</code> is the image's own side; at most 5000 px a side (or <code>limits.max_dimension</code>)"),
            (link("/seed/\(exampleSeed)/200/300"),
             "the image a stable hash of the seed picks: the same on every replica and after restarts, "
                 + "while the library is the same (<code>302</code> as above)"),
            (link("/id/\(id)/200/300.webp") + "<br>" + link("/id/\(id)/200/300.jpg"),
             "the format: JPEG (progressive) without a suffix; another suffix is a <code>400</code>"),
            (link("/id/\(id)/200/300?grayscale") + "<br>" + link("/id/\(id)/200/300?blur=2") + "<br>"
                + link("/id/\(id)/200/300?blur=2&grayscale"),
             "grey; blurred (a Gaussian of sigma 1 to 10, <code>?blur</code> alone is 5); both"),
            (link("/v2/list?page=1&limit=30", signing: false),
             "the library in path order as JSON: <code>id</code> (a string), <code>author</code>, <code>width</code>, "
                 + "<code>height</code>, <code>url</code>, <code>download_url</code>; 30 a page by default, at most 100; "
                 + "<code>Link</code> names the previous and next pages"),
            (link("/id/\(id)/info", signing: false) + "<br>" + link("/seed/\(exampleSeed)/info", signing: false),
             "one image as <code>/v2/list</code> describes it"),
        ]
        let table = rows.map { "<tr><td>\($0.0)</td><td>\($0.1)</td></tr>" }.joined(separator: "\n")
        let authors = Self.authors(catalog)
        return section("""
        <p>Apps written against Lorem Picsum (picsum.photos) load this library instead by changing only \
        the host: thumbd answers the same URL forms, with its own caching, validators and ranges.</p>
        <table>
        <thead><tr><th>URL</th><th>answer</th></tr></thead>
        <tbody>
        \(table)
        </tbody>
        </table>
        <p><strong>Ids</strong> are a stable hash of the image's path in the library, below a million: every \
        replica with the same library gives the same ids, and adding or removing images leaves the other \
        images' ids as they were. When two paths land on one number, the one first in path order keeps it \
        and the other takes the next free number; only then can an added image move another's id. A renamed \
        or moved file gets a new id. A seed picks among the images in path order, so adding images changes \
        what most seeds pick; <code>/v2/list</code> pages shift too.</p>
        <p><strong>Config and signing</strong>: <code>picsum.enabled</code> (default true; false makes every \
        Picsum path a <code>404</code>). thumbd's own routes always win (a library file named \
        <code>health</code> does not change <code>/health</code>). With <code>security.key</code> set, the \
        image and redirect forms need <code>s</code> as <code>/img</code> does (<code>thumbd sign \
        '/id/\(GalleryRoute.html(id))/200/300'</code>) and the redirects point to signed URLs; \
        <code>/v2/list</code> and <code>info</code> need none and give signed URLs.</p>
        <p><strong>Authors</strong>: <code>author</code> is the image's EXIF Artist or XMP creator, else empty. \
        The demo library holds the nature photographs of Debian's <code>mate-backgrounds</code> package \
        (GPL-2+) when it is installed, tagged with the authors its copyright file names; otherwise generated \
        pictures with no author.\(authors.isEmpty ? "" : " Photographs here by " + GalleryRoute.html(authors) + ".")</p>
        """)
    }

    /// Everyone named in the library's `author` fields, each once, in path order.
    static func authors(_ catalog: PicsumCatalog) -> String {
        var seen = Set<String>()
        var names: [String] = []
        for entry in catalog.entries {
            for name in entry.item.facts.author.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
            where !name.isEmpty && seen.insert(name).inserted {
                names.append(name)
            }
        }
        return names.joined(separator: ", ")
    }

    private static func section(_ body: String) -> String {
        "<section class=\"picsum\" id=\"\(anchor)\" aria-labelledby=\"picsum-title\">\n"
            + "<h2 id=\"picsum-title\">\(title)</h2>\n\(body)\n</section>"
    }
}
