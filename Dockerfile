# The API and the indexer, as run by compose.yaml.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json ./
COPY src src
COPY indexer indexer
COPY fixtures fixtures
COPY test test
COPY scripts scripts
COPY mappings mappings
COPY bin bin
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=64", "dist/src/main.js"]
