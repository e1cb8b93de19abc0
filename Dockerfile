# syntax=docker/dockerfile:1
# Basalt: API server, client library and admin console in one image.

# 1. Build everything (dev dependencies included).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY contract/package.json contract/
COPY server/package.json server/
COPY client/package.json client/
COPY console/package.json console/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY contract contract
COPY migrations migrations
COPY server server
COPY client client
COPY console console
COPY scripts scripts
RUN npm run build

# 2. Production dependencies of the server only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY contract/package.json contract/
COPY server/package.json server/
COPY client/package.json client/
COPY console/package.json console/
RUN npm ci --omit=dev --workspace server --no-audit --no-fund

# 3. The runtime: compiled output, production dependencies, a non-root user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/contract/package.json contract/
COPY --from=build /app/contract/dist contract/dist
COPY --from=build /app/migrations/dist migrations/dist
COPY --from=build /app/server/package.json server/
COPY --from=build /app/server/dist server/dist
COPY --from=build /app/client/package.json client/
COPY --from=build /app/client/dist client/dist
COPY --from=build /app/console/dist console/dist
COPY config.json ./
# Files' bytes (STORAGE_URL=file:///data/files in compose): a volume mounted here starts owned by the service's user.
RUN mkdir -p /data/files && chown node:node /data/files
USER node
EXPOSE 3000
# Readiness (/ready: migrated, schema loaded, database answering, not stopping); node images have no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "server/dist/main.js"]
