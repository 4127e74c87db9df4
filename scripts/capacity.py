#!/usr/bin/env python3
"""A small simulation of thumbd's cluster behind a CDN, for docs/capacity.md: requests for a
catalogue of thumbnails (Zipf popularity) through a CDN (an LRU of its capacity), then a
consistent-hashing balancer (a ring of 160 points per replica, as nginx's `hash ... consistent`),
then each replica's memory and disk tiers (LRUs), then the shared tier (every thumbnail made
since it was last purged), else a transform. Along the way a replica is lost, then added
back, and sources are purged (everywhere: CDN, tiers and shared tier, as one POST /v1/purge
does). It counts what each layer answered in each phase and prices it with the CPU and store
figures measured on these machines (docs/benchmarks.md). Deterministic (a fixed seed).
    scripts/capacity.py [--requests N] [--rate R] [--sources S] [--sizes K] [--replicas N]
                        [--cdn-objects C] [--memory-objects M] [--disk-objects D]
                        [--purges-per-day P] [--no-shared]
"""
import argparse
import bisect
import hashlib
import random
import zlib
from collections import OrderedDict

# Measured (docs/benchmarks.md): CPU of one request by where it was answered, seconds.
CPU = {"transform": 0.0700, "shared": 0.00041, "disk": 0.00006, "memory": 0.000020}


class LRU:
    def __init__(self, capacity):
        self.capacity, self.items = capacity, OrderedDict()

    def get(self, key):
        if key in self.items:
            self.items.move_to_end(key)
            return True
        return False

    def put(self, key):
        if self.capacity <= 0:
            return
        self.items[key] = True
        self.items.move_to_end(key)
        if len(self.items) > self.capacity:
            self.items.popitem(last=False)

    def drop_source(self, source):
        for key in [k for k in self.items if k[0] == source]:
            del self.items[key]


class Ring:
    """Consistent hashing: 160 points per replica on a 32-bit ring, a URI to the next point."""

    def __init__(self, replicas):
        self.points = sorted((zlib.crc32(f"replica-{r}-{v}".encode()), r) for r in replicas for v in range(160))
        self.keys = [p for p, _ in self.points]

    def replica(self, uri):
        i = bisect.bisect(self.keys, zlib.crc32(uri.encode())) % len(self.points)
        return self.points[i][1]


def zipf_sampler(n, s, rng):
    weights = [1.0 / (k + 1) ** s for k in range(n)]
    total, acc, cumulative = sum(weights), 0.0, []
    for w in weights:
        acc += w / total
        cumulative.append(acc)
    order = list(range(n))
    rng.shuffle(order)  # popularity is not the source's number
    return lambda: order[min(n - 1, bisect.bisect(cumulative, rng.random()))]


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--requests", type=int, default=3_000_000)
    a.add_argument("--rate", type=float, default=2000.0, help="requests a second at the CDN")
    a.add_argument("--sources", type=int, default=20_000)
    a.add_argument("--sizes", type=int, default=4)
    a.add_argument("--zipf", type=float, default=0.9)
    a.add_argument("--replicas", type=int, default=3)
    a.add_argument("--cdn-objects", type=int, default=30_000)
    a.add_argument("--memory-objects", type=int, default=10_000)
    a.add_argument("--disk-objects", type=int, default=40_000)
    a.add_argument("--purges-per-day", type=float, default=2_000)
    a.add_argument("--thumbnail-kb", type=float, default=18)
    a.add_argument("--no-shared", action="store_true")
    o = a.parse_args()

    rng = random.Random(20261129)
    pick = zipf_sampler(o.sources, o.zipf, rng)
    seconds = o.requests / o.rate
    purge_every = max(1, int(o.requests / (o.purges_per_day * seconds / 86400))) if o.purges_per_day > 0 else 0
    cdn = LRU(o.cdn_objects)
    replicas = {r: (LRU(o.memory_objects), LRU(o.disk_objects)) for r in range(1, o.replicas + 1)}
    shared = set()
    phases = [("warm-up", 0.25), ("steady", 0.25), (f"replica {o.replicas} lost", 0.25), (f"replica {o.replicas} back, empty", 0.25)]
    bounds, at = [], 0
    for name, share in phases:
        at += int(o.requests * share)
        bounds.append((name, at))
    rows, counts, phase, start = [], {}, 0, 0
    live = list(replicas)
    ring = Ring(live)
    for i in range(o.requests):
        if i == bounds[1][1]:  # replica lost
            live = [r for r in replicas if r != o.replicas]
            ring = Ring(live)
        if i == bounds[2][1]:  # back, with empty tiers (a new container)
            replicas[o.replicas] = (LRU(o.memory_objects), LRU(o.disk_objects))
            live = list(replicas)
            ring = Ring(live)
        if purge_every and i % purge_every == purge_every - 1:
            source = pick()
            cdn.drop_source(source)
            for memory, disk in replicas.values():
                memory.drop_source(source)
                disk.drop_source(source)
            shared.difference_update({(source, k) for k in range(o.sizes)})
            counts["purges"] = counts.get("purges", 0) + 1
        key = (pick(), rng.randrange(o.sizes))
        uri = f"/img/{key[0]}.jpg?w={key[1]}"
        if cdn.get(key):
            where = "cdn"
        else:
            cdn.put(key)
            memory, disk = replicas[ring.replica(uri)]
            if memory.get(key):
                where = "memory"
            elif disk.get(key):
                where = "disk"
                memory.put(key)
            elif not o.no_shared and key in shared:
                where = "shared"
                memory.put(key)
                disk.put(key)
            else:
                where = "transform"
                memory.put(key)
                disk.put(key)
                shared.add(key)
        counts[where] = counts.get(where, 0) + 1
        if i + 1 == bounds[phase][1]:
            rows.append((bounds[phase][0], i + 1 - start, counts))
            counts, start, phase = {}, i + 1, phase + 1

    print(f"capacity: {o.requests:,} requests at {o.rate:,.0f}/s ({seconds / 3600:.2f} h), {o.sources:,} sources x {o.sizes} sizes "
          f"(Zipf {o.zipf}), CDN {o.cdn_objects:,} objects, {o.replicas} replicas of {o.memory_objects:,} in memory and "
          f"{o.disk_objects:,} on disk, shared tier {'off' if o.no_shared else 'on'}, {o.purges_per_day:,.0f} purges a day")
    print()
    print("| phase | CDN hits | at the replicas /s | memory | disk | shared | made /s | cores for thumbd | store requests /s | egress from thumbd MB/s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, n, c in rows:
        origin = n - c.get("cdn", 0)
        scale = o.rate / n
        cpu = sum(c.get(k, 0) * CPU[k] for k in CPU) * scale
        # For a bucket library: a transform first asks the shared tier (a GET that misses), reads
        # its original (a GET) and writes the tier (a PUT); a shared hit is one GET. (A folder
        # library reads no original from the store: one request fewer per transform.)
        store = (c.get("transform", 0) * (1 if o.no_shared else 3) + c.get("shared", 0)) * scale
        def share(k):
            return f"{100 * c.get(k, 0) / max(1, origin):.1f} %"
        print(f"| {name} | {100 * c.get('cdn', 0) / n:.1f} % | {origin * scale:,.0f} | {share('memory')} | {share('disk')} | "
              f"{share('shared')} | {c.get('transform', 0) * scale:,.1f} | {cpu:.2f} | {store:,.1f} | "
              f"{origin * scale * o.thumbnail_kb / 1024:.1f} |")


if __name__ == "__main__":
    main()
