# syntax=docker/dockerfile:1
# ModelGate: the server and the console are built in the first stage; the second keeps what
# `node server/dist/main.js` needs (production dependencies, the server bundle, the built console),
# runs as the unprivileged `node` user and keeps the SQLite database in the /data volume.
#   docker build -t modelgate . && docker run -p 3000:3000 -v modelgate-data:/data -e SESSION_SECRET=... modelgate
# server/test/platform/production-image.test.ts runs these steps in a clean clone, so keep to the
# instructions it reads (FROM, WORKDIR, ENV, COPY, RUN with relative paths, USER, VOLUME, EXPOSE,
# HEALTHCHECK, CMD in exec form). See docs/deploy.md.

FROM node:24-bookworm AS build
WORKDIR /app
# The manifests first, so the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY packages/shared/package.json packages/shared/
COPY server/package.json server/
COPY web/package.json web/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund
# The volume's mount point, copied below so that it belongs to the node user.
RUN mkdir -p data

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=3000 SQLITE_PATH=/data/modelgate.db
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/server/package.json ./server/
COPY --from=build /app/server/dist ./server/dist
COPY --from=build /app/web/dist ./web/dist
COPY --from=build --chown=node:node /app/data /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server/dist/main.js"]
