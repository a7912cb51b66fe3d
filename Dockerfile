# One image for every role of agentjobs: `serve` (the default), `api`, `worker`, `migrate`.
# docker and podman build it. Where no image registry is reachable, scripts/build-base-image.sh
# makes both base images from Debian's packages and the npm registry's Node, under these names.
#
#   podman build -t agentjobs .
#   podman run --read-only -v agentjobs-data:/var/lib/agentjobs -p 8080:8080 agentjobs
#
# The worker's sandbox needs more than a container's defaults: docs/deploy.md, "The sandbox in a
# container".

# The image the service runs on: Node with Debian bookworm.
ARG NODE_IMAGE=node:24-bookworm-slim
# The image it is built on: the same Node with a compiler, for a native module (better-sqlite3)
# whose prebuilt binary cannot be downloaded.
ARG BUILD_IMAGE=node:24-bookworm

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# Dependencies first, in a layer of their own that a change to the sources does not rebuild; no
# install scripts yet (the `prepare` script would build sources not copied yet).
# Two optional build secrets reach npm and nothing else (never a layer): `npmrc`, an .npmrc naming a
# registry mirror and its token, and `ca`, the certificates of a TLS-inspecting proxy or a private
# registry (`--secret id=ca,src=/etc/ssl/certs/ca-certificates.crt`).
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    --mount=type=secret,id=npmrc,target=/root/.npmrc \
    --mount=type=secret,id=ca \
    NODE_EXTRA_CA_CERTS=/run/secrets/ca npm ci --ignore-scripts --no-audit --no-fund
# The native module better-sqlite3 (a prebuilt binary, else compiled), only where it is used: Node 24
# and later use Node's own SQLite, so the default image skips what was two thirds of its build time.
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    --mount=type=secret,id=npmrc,target=/root/.npmrc \
    --mount=type=secret,id=ca \
    if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then \
      NODE_EXTRA_CA_CERTS=/run/secrets/ca npm rebuild better-sqlite3; \
    fi
COPY tsconfig.json tsconfig.build.json tsconfig.client.json ./
COPY src src
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
# git (the agent's workspace), bubblewrap (the sandbox; prlimit, tar and cp are in Debian's base),
# slirp4netns (the setup command's network to the outside, never to the host),
# tini (PID 1: passes signals on, reaps orphans) and CA certificates. An air-gapped base has them
# already, and then nothing is downloaded.
RUN if ! dpkg -s git bubblewrap slirp4netns tini ca-certificates >/dev/null 2>&1; then \
      apt-get update \
      && apt-get install -y --no-install-recommends git bubblewrap slirp4netns tini ca-certificates \
      && rm -rf /var/lib/apt/lists/*; \
    fi \
    && groupadd --gid 10001 agentjobs \
    && useradd --uid 10001 --gid 10001 --home-dir /var/lib/agentjobs --no-create-home \
         --shell /usr/sbin/nologin agentjobs \
    && mkdir -p /var/lib/agentjobs \
    && chown 10001:10001 /var/lib/agentjobs \
    && chmod 0700 /var/lib/agentjobs
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist dist
COPY assets assets
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    AGENTJOBS_DATA_DIR=/var/lib/agentjobs \
    HOME=/var/lib/agentjobs
# The SQLite database, the git mirrors and the generated secret key; with PostgreSQL, only mirrors.
VOLUME /var/lib/agentjobs
EXPOSE 8080
# A number, not a name, so that Kubernetes' runAsNonRoot can check it without reading /etc/passwd.
USER 10001:10001
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli/main.js"]
CMD ["serve"]
