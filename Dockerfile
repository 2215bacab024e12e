# syntax=docker/dockerfile:1
# Build stage: compile TypeScript with the full dev toolchain.
FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles its native addon with node-gyp.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
# `npm install` honours the lock file; `npm ci` rejects it where a registry lacks other platforms' builds.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY ui ./ui
COPY scripts/build-ui.js scripts/build-server.js ./scripts/
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and compiled code only, as a non-root user.
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    INTERLUDE_CONFIG=/app/config/default.yml \
    INTERLUDE_HOST=0.0.0.0 \
    INTERLUDE_PORT=8000 \
    INTERLUDE_DB_URL=sqlite:/app/data/interlude.db
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
# Mount your own config over /app/config (or point INTERLUDE_CONFIG at a file inside it).
COPY config ./config
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 8000
# Ready, not just alive: /health/ready answers 503 while the store (PostgreSQL, Redis) is unreachable
# or the server is shutting down, so a proxy or orchestrator stops sending it requests.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.INTERLUDE_PORT||8000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM (the default) starts the graceful hand-off; give it general.shutdown_grace_seconds.
STOPSIGNAL SIGTERM
CMD ["sh", "-c", "exec node dist/cli.js serve --config \"$INTERLUDE_CONFIG\" --host \"$INTERLUDE_HOST\" --port \"$INTERLUDE_PORT\""]
