# jup-keeper: the keeper daemon and its simulator, compiled to JavaScript, in one image. docker-compose.yml runs it
# twice (the simulator and the bot) beside a Redis of its own. Redis is not in the image: it is the system of record
# (queues, intent ledger, kill switch) and keeps its AOF on a volume, so that replacing this container never touches it.

# Build: every dependency, then TypeScript to dist/ (npm run build).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY strategies ./strategies
RUN npm run build

# Production dependencies only. tsx is one of them: it loads strategies of the user's own written in TypeScript
# (config/strategies/*.ts), never the keeper's code.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# tini runs as PID 1: the kernel gives PID 1 no default signal actions, and nothing else would reap the children
# that exit under it (tsx's esbuild service); tini passes SIGTERM on to node, which stops the keeper cleanly.
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    LOG_LEVEL=info
WORKDIR /app
# Owned by root, run as node: the keeper cannot rewrite its own code or configs. package.json makes config/ an ES
# module scope, so a user's TypeScript strategy there loads as a module, as it does from the source tree.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config ./config

# Never bake secrets into the image: JUPITER_API_KEY, DASHBOARD_TOKEN and SOLANA_RPC_URL come from the environment,
# the keypair from a file mounted read-only at run time (docs/docker.md).
USER node
# The dashboard (`run`) and the simulator (`sim --host 0.0.0.0`).
EXPOSE 8787 8899
# /healthz of the dashboard in this container: healthy while the workers beat in Redis. DASHBOARD_PORT and
# DASHBOARD_TOKEN tell the check where it listens and how to get in.
HEALTHCHECK --interval=30s --timeout=10s --start-period=90s --retries=3 CMD ["node", "dist/src/cli/healthcheck.js"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/src/cli/main.js"]
CMD ["run", "--config", "config/paper.yaml"]
