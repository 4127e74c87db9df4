extension ThumbdConfig.Output {
    /// The Cache-Control of images and thumbnails: `cache_control`, then the shared caches'
    /// directives that are set and that it does not already name.
    var imageCacheControl: String {
        var value = cacheControl
        for (name, seconds) in [("s-maxage", sMaxAge), ("stale-while-revalidate", staleWhileRevalidate), ("stale-if-error", staleIfError)]
        where seconds > 0 && !value.lowercased().contains(name) {
            value += ", \(name)=\(Int(seconds.rounded()))"
        }
        return value
    }
}
