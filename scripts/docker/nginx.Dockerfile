# A local stand-in for the official nginx:stable-bookworm (deploy/cluster/compose.yaml's
# balancer), which cannot be pulled where no image registry is reachable: Debian's own nginx
# on the seeded debian:bookworm-slim, run as the official image runs it (in the foreground,
# stopped gracefully with SIGQUIT, logs to the container's output). compose.yaml mounts its
# nginx.conf over /etc/nginx/nginx.conf.
FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* \
    && ln -sf /dev/stdout /var/log/nginx/access.log \
    && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
