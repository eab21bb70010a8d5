# jup-keeper: the keeper daemon and its simulator in one image.
FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    LOG_LEVEL=info
WORKDIR /app

# redis-server is only used when no REDIS_URL is given (paper trading on one box).
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends redis-server ca-certificates \
 && rm -rf /var/lib/apt/lists/*

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

COPY bin ./bin
COPY src ./src
COPY strategies ./strategies
COPY config ./config
COPY tsconfig.json ./

# Never bake secrets into the image: pass JUPITER_API_KEY and the keypair at run time (env or a mounted file).
USER node
ENTRYPOINT ["node", "bin/jup-keeper.js"]
CMD ["run", "--config", "config/paper.yaml"]
