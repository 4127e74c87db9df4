import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One page of a JSON listing (thumbd's `/v1/images` or the Picsum-compatible `/v2/list`), or one image's facts:
/// fetched, checked and decoded, and its `Link` relations resolved against its URL.
enum ListingRequest {
    static func items<Item: Decodable>(_ type: Item.Type, at url: URL, transport: any ThumbdTransport) async throws
        -> (items: [Item], response: TransportResponse) {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (response, body) = try await transport.response(for: request)
        guard response.statusCode == 200 else { throw ThumbdLoadError.httpStatus(response.statusCode) }
        do {
            return (try JSONDecoder().decode([Item].self, from: body), response)
        } catch {
            throw ThumbdLoadError.invalidResponse("listing JSON: \(error)")
        }
    }

    /// One JSON object.
    static func item<Item: Decodable>(_ type: Item.Type, at url: URL, transport: any ThumbdTransport) async throws -> Item {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (response, body) = try await transport.response(for: request)
        guard response.statusCode == 200 else { throw ThumbdLoadError.httpStatus(response.statusCode) }
        do {
            return try JSONDecoder().decode(Item.self, from: body)
        } catch {
            throw ThumbdLoadError.invalidResponse("\(Item.self) JSON: \(error)")
        }
    }

    /// The absolute URL of the response's `Link` with `relation`, if it has one.
    static func link(_ relation: String, of response: TransportResponse, at url: URL) -> URL? {
        response.header("Link").flatMap { LinkHeader.target(of: $0, relation: relation) }
            .flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
    }
}
