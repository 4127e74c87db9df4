/// One image as Picsum's `/v2/list` and `info` describe it: the same fields, `id` a string.
import ThumbdCore

struct PicsumImageInfo: Encodable, Equatable {
    var id: String
    var author: String
    var width: Int
    var height: Int
    var url: String
    var downloadURL: String

    enum CodingKeys: String, CodingKey {
        case id, author, width, height, url
        case downloadURL = "download_url"
    }

    init(_ entry: PicsumCatalog.Entry, links: PicsumLinks) {
        id = String(entry.id)
        author = entry.item.facts.author
        width = entry.item.width
        height = entry.item.height
        url = links.original(entry)
        downloadURL = links.download(entry)
    }
}
