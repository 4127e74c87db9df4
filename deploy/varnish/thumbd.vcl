# Varnish in front of thumbd (Debian's varnish 7.1 and varnish-modules, for xkey): caches what
# thumbd says may be cached, files each answer under the tags of its `xkey` header (thumbd
# with cdn.kind: varnish), and drops every answer of a tag when a purger sends
#     PURGE /   xkey-purge: TAG [TAG ...]
# which thumbd does after its own tiers on each POST /v1/purge (cdn.purge_url naming this
# Varnish). docs/deployment.md, "A CDN in front".
vcl 4.1;

import xkey;

# thumbd's balancer (deploy/cluster/compose.yaml's nginx), or a replica; scripts/cluster.sh writes its own.
backend thumbd {
    .host = "balancer";
    .port = "8080";
}

# Who may purge: thumbd's replicas. Loopback, and deploy/cluster/compose.yaml's network: name
# your replicas' addresses here, no wider (a tag is the same everywhere, and a purge of the
# library root's tag empties the cache).
acl purgers {
    "127.0.0.1";
    "::1";
    "172.28.0.0"/16;
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "purging is for thumbd's replicas"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "PURGE needs an xkey-purge header"));
        }
        set req.http.n-gone = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Invalidated " + req.http.n-gone + " objects"));
    }
    # thumbd's own operations are never cached; nor is anything but GET and HEAD.
    if (req.url ~ "^/(v1/purge|metrics|health)" || (req.method != "GET" && req.method != "HEAD")) {
        return (pass);
    }
    # Thumbnails are the same for every user: cookies and authorization are not part of them.
    unset req.http.Cookie;
    return (hash);
}

sub vcl_backend_response {
    # thumbd's Cache-Control says what may be kept and for how long (s-maxage first, and
    # stale-while-revalidate as grace), and its Vary (Accept, for fm=auto) what else an answer
    # depends on. What it says not to keep (no-store, no-cache, private: problems, listings,
    # info, metrics) is passed, as Varnish's built-in rules do, which this VCL would skip.
    if (beresp.http.Cache-Control ~ "(?i)(no-store|no-cache|private)" || beresp.http.Vary == "*") {
        set beresp.ttl = 120s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    return (deliver);
}

sub vcl_deliver {
    # The tags are for Varnish; a client has no use for them.
    unset resp.http.xkey;
    if (obj.hits > 0) {
        set resp.http.X-Varnish-Cache = "hit";
    } else {
        set resp.http.X-Varnish-Cache = "miss";
    }
}
