# syntax=docker/dockerfile:1
# Model gateway image: build with the dev dependencies, run with the production ones only.
#   docker build -t model-gateway .
#   docker run --rm -p 8080:8080 -e GATEWAY_API_KEYS_FILE=/run/secrets/keys ... model-gateway
# See compose.yaml for PostgreSQL, Redis and secrets from files.

# ---- build: TypeScript -> dist/ ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
# No lifecycle scripts yet: the sources are not copied (prepare would build nothing).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# ---- runtime: production dependencies + the compiled gateway, as a non-root user ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    GATEWAY_FILES_DIR=/var/lib/gateway/files \
    GATEWAY_PID_FILE=/var/lib/gateway/gateway.pid
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY bin ./bin
# `prepare` finds no TypeScript here and does not build: start never compiles.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
# The config meta-schemas precompiled by the build (faster start and lint).
COPY --from=build /app/dist/schemas ./dist/schemas
# The startup cache the build filled for the shipped config (parsed YAML, route validators):
# dist/ is not writable by the node user, so without it every start parses and compiles again.
COPY --from=build /app/dist/cache ./dist/cache
COPY schemas ./schemas
COPY routes ./routes
COPY gateway.yaml ./
RUN mkdir -p /var/lib/gateway/files && chown -R node:node /var/lib/gateway
USER node
EXPOSE 8080
# Ready = config, store and providers up, and not draining (GET /readyz; /healthz is liveness).
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains gracefully for server.shutdown_grace_s (30 s by default): give the container
# more than that before it is killed (docker stop -t 40, compose stop_grace_period: 40s,
# Kubernetes terminationGracePeriodSeconds: 40).
STOPSIGNAL SIGTERM
CMD ["node", "bin/gateway.js", "serve"]
