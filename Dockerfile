# The ramp-sandbox image (CONTRACT §20; docs/container.md):
#   docker build -t ramp-sandbox .
#   docker run --rm -p 127.0.0.1:4010:4010 ramp-sandbox
# node:20-slim is the only base image and the only thing pulled. Three stages, so the image holds
# what runs (the compiled CLI, fixtures, scenarios, production dependencies) and nothing the build
# needed (dev dependencies, sources, tests, npm's cache).

# 1. The build: every dependency, then tsup (dist/: the bundled CLI and the dashboard's files;
#    RAMP_SANDBOX_BUILD=image skips the type declarations, tsup.config.ts).
FROM node:20-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsup.config.ts ./
COPY src ./src
RUN RAMP_SANDBOX_BUILD=image npm run build

# 2. Production dependencies only, without install scripts (none of them needs one).
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error && npm cache clean --force

# 3. What runs.
FROM node:20-slim
# Set by .github/workflows/image.yml from the tag and the repository; the defaults are a local build's.
ARG VERSION=0.1.0
ARG SOURCE=https://github.com/OWNER/ramp-sandbox
ARG REVISION=unknown
# The project declares no licence (package.json has no "license"), so the SPDX "not asserted".
LABEL org.opencontainers.image.title="ramp-sandbox" \
      org.opencontainers.image.description="In-memory simulator of the Partner Order API: /v1, order lifecycle on a controllable clock, signed webhooks, scenario runner" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="NOASSERTION" \
      org.opencontainers.image.base.name="docker.io/library/node:20-slim"
# HOST: reachable through the published port (the sandbox warns that /sandbox is open to whoever
# reaches it without --admin-token; docs/control-api.md). SANDBOX_STATE is not set: state is kept
# only when asked (-e SANDBOX_STATE=/data/state.json), in the volume below.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4010
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /build/dist ./dist
COPY package.json README.md ./
COPY fixtures ./fixtures
COPY scenarios ./scenarios
# /data: the state file, ready files and JUnit reports, writable by the non-root user. A named
# volume mounted there starts with this folder's owner.
# `ramp-sandbox` on the PATH, so the terminal verbs run inside a running container:
# `docker exec rs ramp-sandbox tail` (docs/container.md). bin.js keeps its `#!/usr/bin/env node`
# and tsup makes it executable; Node resolves the link, so the package root is still /app.
RUN mkdir /data && chown node:node /data && ln -s /app/dist/cli/bin.js /usr/local/bin/ramp-sandbox
VOLUME /data
USER node
EXPOSE 4010
# No curl or wget in the image: Node's own fetch (one short node process per check, hence every
# 5 s and not every second; --start-interval would be the way, but podman 4 and older Docker
# refuse it). /health itself answers within 2 s of the start (CONTRACT §20; test/container).
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4010)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# PID 1 is node itself: the sandbox handles SIGTERM (a graceful stop that saves --state, then
# exit 0), so `docker stop` needs no init process.
ENTRYPOINT ["node", "/app/dist/cli/bin.js"]
CMD ["serve"]
