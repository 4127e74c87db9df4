# A local stand-in for the official swift:6.2-bookworm, which cannot be pulled where no image
# registry is reachable. scripts/docker-test.sh builds it from a tar stream whose rootfs/ holds,
# each at its path on the host: the parts of this machine's Swift toolchain that
# `swift build -c release --static-swift-stdlib` uses (no debugger, SourceKit, docs, lld or
# Embedded Swift), the local Swift package mirror and an /etc/gitconfig with only the
# url.insteadOf entries that point SwiftPM at it (containers cannot reach the package hosts
# either).
FROM debian:bookworm-slim
# The official image's packages (swift-docker 6.2/debian/12), less libpython3-dev and
# libedit-dev, which only the debugger and the REPL use; plus libncurses6, which the
# toolchain's swift-driver and swift-package link. ld.gold comes from binutils, as there.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends binutils libicu-dev libcurl4-openssl-dev \
       libsqlite3-dev libncurses-dev libncurses6 libxml2-dev pkg-config uuid-dev tzdata git \
       gcc libc6-dev libstdc++-12-dev \
    && rm -rf /var/lib/apt/lists/*
COPY rootfs/ /
ARG SWIFT_BIN=/opt/swift/usr/bin
ENV PATH=${SWIFT_BIN}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["bash"]
