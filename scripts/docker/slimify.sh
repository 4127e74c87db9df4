#!/bin/sh
# mmdebstrap customize hook (scripts/docker-test.sh): makes the chroot in $1 what the official
# debian:bookworm-slim is. mmdebstrap unpacks the essential packages before dpkg reads
# dpkg-slim.cfg, so what it excludes is removed here, as debuerreotype's slimify does; and
# policy-rc.d keeps packages installed in image builds from starting services.
set -eu
root=$1
find "$root/usr/share/doc" -mindepth 1 ! -type d ! -name copyright -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
for dir in groff info linda lintian/overrides man; do
    if [ -d "$root/usr/share/$dir" ]; then find "$root/usr/share/$dir" -mindepth 1 -delete; fi
done
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
