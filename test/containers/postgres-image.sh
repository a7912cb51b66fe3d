#!/usr/bin/env bash
# A PostgreSQL image for the container tests, made like the base images (scripts/build-base-image.sh)
# from Debian's packages, since no image registry is reachable here. It takes the official postgres
# image's variables (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB) so deploy/compose.yaml runs
# against either. Tagged localhost/agentjobs-test-postgres:<hash of this file>, and not made again
# while that tag exists. Prints the image name.
set -euo pipefail
hash=$(sha256sum "$0" | cut -c1-16)
name=localhost/agentjobs-test-postgres:$hash
if podman image exists "$name"; then echo "$name"; exit 0; fi
apt_cache=${APT_CACHE:-$HOME/.cache/agentjobs-base/apt}
mkdir -p "$apt_cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/entrypoint" <<'SCRIPT'
#!/bin/sh
# First start: a cluster whose one user has the password given; every start: PostgreSQL in front.
set -eu
bin=$(echo /usr/lib/postgresql/*/bin)
export PGDATA=/var/lib/postgresql/data
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  user=${POSTGRES_USER:-postgres}
  # As the official image: a password, or POSTGRES_HOST_AUTH_METHOD=trust for throwaway databases.
  method=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  password=
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    printf '%s' "$POSTGRES_PASSWORD" > /tmp/password
    password=--pwfile=/tmp/password
  fi
  "$bin/initdb" -U "$user" $password --auth-local=trust --auth-host="$method" >/dev/null
  rm -f /tmp/password
  echo "host all all 0.0.0.0/0 $method" >> "$PGDATA/pg_hba.conf"
  "$bin/pg_ctl" -w -o "-c listen_addresses='' -c unix_socket_directories=/tmp" start >/dev/null
  if [ "${POSTGRES_DB:-$user}" != postgres ]; then "$bin/createdb" -h /tmp -U "$user" "${POSTGRES_DB:-$user}"; fi
  "$bin/pg_ctl" -w stop >/dev/null
fi
exec "$bin/postgres" -c listen_addresses='*' -c unix_socket_directories=/tmp
SCRIPT
sources=()
for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
  [ -f "$file" ] && grep -q debian "$file" && sources+=("$file")
done
mmdebstrap --quiet --variant=minbase --include=postgresql-15 \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --skip=download/empty \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives' \
  --setup-hook="sync-in '$apt_cache' /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives '$apt_cache'" \
  --customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/*' \
  --customize-hook="copy-in '$work/entrypoint' /usr/local/bin" \
  --customize-hook='chmod 0755 "$1"/usr/local/bin/entrypoint; mkdir -p "$1"/var/lib/postgresql/data; chroot "$1" chown -R postgres:postgres /var/lib/postgresql; chmod 0700 "$1"/var/lib/postgresql/data' \
  bookworm "$work/root" "${sources[@]}" >&2
tar -C "$work/root" -c . | podman import --quiet \
  --change 'USER postgres' \
  --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/bin:/usr/bin:/bin' \
  --change 'ENTRYPOINT ["/usr/local/bin/entrypoint"]' \
  --change 'EXPOSE 5432' \
  - "$name" >/dev/null
echo "$name"
