// The URL protocol (ThumbnailOptions, URLSigner) is part of the kit's API: apps see it
// through `import ThumbdKit`.
@_exported import ThumbdProtocol

/// ThumbdKit: the Swift client of thumbd, for apps that show grids of images. Foundation
/// only; runs on Apple platforms and Linux.
///
/// - **URLs** (`ThumbdURLBuilder`, `ThumbnailOptions`): `/img/{path}` and `/proxy?url=` URLs
///   in the server's normal form (dpr folded into `w`/`h`, what the server ignores dropped,
///   parameters in its canonical order), so equal requests are equal URLs and share one cache
///   entry in the app and on the server. `ThumbdURLSigner` signs targets exactly as the server
///   checks them; it belongs on a backend, never in an app.
/// - **Listing** (`ThumbdListing`): the library's `/v1/images` pages, followed by their
///   `Link: rel="next"` headers, as an async sequence of pages or of images.
/// - **Loading** (`ThumbdLoader<Image>`): generic over the app's image type through a decode
///   function that always runs off the caller's actor. Each load reports its `LoadOutcome`
///   (memory, disk, network, revalidated, resumed) and the bytes it received; `counters`
///   gives loader-wide totals.
/// - **Caches that follow HTTP**: a memory tier of decoded images (LRU, bounded by the app's
///   cost function) and a disk tier of bodies with their validators and freshness (LRU,
///   bounded in bytes, written by temp file and rename, checksummed, kept across restarts).
///   `max-age`, `no-store`, `no-cache`, 304 revalidation and `Vary: Accept` are honoured.
/// - **Coalescing and cancellation**: one transfer per URL however many callers wait; it
///   stops (`URLSessionDataTask.cancel()`) when the last of them cancels.
/// - **Resume**: the bytes of a stopped or failed transfer are kept (memory, and disk when
///   on) with the response's strong ETag or Last-Modified; the next load sends
///   `Range: bytes=N-` with `If-Range` and appends a 206 that continues exactly at N, or starts
///   over cleanly.
/// - **Transports** (`ThumbdTransport`): `URLSessionTransport` streams chunks through a data
///   delegate (Linux's URLSession has no resume data). The `ThumbdKitTesting` library adds
///   slower networks for simulators and tests: `ThrottledTransport` (latency, bandwidth limits
///   and jitter per transfer) and `SharedLinkTransport` (one link all transfers share, as a
///   phone's radio).
/// - **Cells** (`ImageSlot`): what a reusable cell owns; binding a new item cancels the old
///   load and a late result for an older item is never delivered.
/// - **Prefetching** (`ThumbdLoader.prefetch`): low priority, bounded concurrency,
///   cancellable; a visible load joins a prefetch under way and raises its priority.
public enum ThumbdKit {
    public static let version = "0.1.0"
}

/// Signs targets exactly as the server checks them (the server's own `URLSigner`); it belongs
/// on a backend, never in an app.
public typealias ThumbdURLSigner = URLSigner
