# Orca's image: the `orca` command on Node 20, run from its TypeScript
# sources by tsx (a runtime dependency, as `npm start` runs it), with only
# the production dependencies. The Helm chart runs it as `orca serve` (the
# API and the engine shards, by ORCA_ROLE) and `orca operator`.
# Build it from the repository's root (docs/kubernetes.md):
#   docker build -t orca:0.1.0 .
# where 0.1.0 is package.json's version, the chart's appVersion.
ARG NODE_VERSION=20

# The web UIs, when the repository has a build for them (`npm run build:ui`,
# which needs the dev dependencies); otherwise ui/dist stays empty.
FROM node:${NODE_VERSION}-bookworm-slim AS ui
WORKDIR /app
COPY package.json package-lock.json ./
RUN if node -e "process.exit(require('./package.json').scripts?.['build:ui'] ? 0 : 1)"; then npm ci --ignore-scripts --no-audit --no-fund; fi
COPY . .
RUN npm run build:ui --if-present && mkdir -p ui/dist

FROM node:${NODE_VERSION}-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the root package's own lifecycle scripts need what this stage leaves out,
# and no production dependency needs an install script to work (esbuild finds its binary package).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:${NODE_VERSION}-bookworm-slim
ENV NODE_ENV=production
# A numeric user of its own, so Kubernetes can tell it is not root (runAsNonRoot); the chart runs as it.
RUN groupadd --gid 10001 orca && useradd --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin orca
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=ui /app/ui/dist ./ui/dist
COPY package.json ./
COPY bin ./bin
COPY cli ./cli
COPY client ./client
COPY api ./api
COPY engine ./engine
COPY operator ./operator
USER 10001:10001
EXPOSE 8080
# node itself is PID 1, so SIGTERM reaches orca and shuts it down gracefully (npm start would not pass it on).
ENTRYPOINT ["node", "bin/orca.js"]
CMD ["serve"]
