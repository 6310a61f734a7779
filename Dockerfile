# Scoreboard's container image: a build stage that compiles the TypeScript and the SQLite driver,
# then a slim runtime stage with only what `scoreboard` runs on, as a non-root user.
#
#   docker build -t scoreboard .
#   docker run --rm -p 3000:3000 -v scoreboard-data:/data scoreboard
#
# NODE_IMAGE is any Debian-based image with Node.js >= 20 and npm (the official one by default);
# scripts/container/build-base.sh makes one from Debian's packages where no registry can be reached.
ARG NODE_IMAGE=docker.io/library/node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 12 (the driver used on Node 20) compiles its addon when no prebuilt binary can be
# downloaded, against the image's own Node headers (nodedir); set npm_config_build_from_source to
# better-sqlite3 to skip the download attempt. Version 13 (Node >= 22) ships its binaries.
ARG npm_config_build_from_source
ENV npm_config_nodedir=/usr/local
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY scripts/prepare.mjs scripts/prepare.mjs
# Dependencies first, so a change to the sources does not reinstall them.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY web web
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/scoreboard.db
RUN groupadd --system --gid 10001 scoreboard \
  && useradd --system --uid 10001 --gid scoreboard --home-dir /app --shell /usr/sbin/nologin scoreboard \
  && mkdir -p /data && chown scoreboard:scoreboard /data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY bin bin
COPY resources resources
USER scoreboard
# The SQLite default keeps its file in /data: mount a volume there (no VOLUME line, so a container
# that uses PostgreSQL leaves no anonymous volume behind).
EXPOSE 3000
# Alive and answering; /readyz (database reachable) is for load balancers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "bin/scoreboard.js"]
# `docker run scoreboard migrate` runs the migrations as their own step (compose.yaml does).
CMD ["serve"]
