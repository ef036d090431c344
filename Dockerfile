# syntax=docker/dockerfile:1
# lmtab: `docker build -t lmtab .`, then `docker run -p 1234:1234 -v lmtab-data:/data lmtab`.
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
# Chromium runs the engine; libvulkan1 lets it reach an NVIDIA GPU through Vulkan; tini reaps
# the browser processes and passes signals on.
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium libvulkan1 ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
  LMTAB_HOME=/data \
  LMTAB_BROWSER=/usr/bin/chromium \
  LMTAB_CHROMIUM_ARGS="--no-sandbox --disable-dev-shm-usage" \
  NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics
WORKDIR /opt/lmtab
COPY --from=build /src/package.json /src/package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /src/bin ./bin
COPY --from=build /src/build ./build
COPY --from=build /src/dist ./dist
RUN ln -s /opt/lmtab/bin/lmtab.js /usr/local/bin/lmtab && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
# 1234: lmtab and OpenAI clients; 11434: Ollama clients; 8080: inside Kubernetes.
EXPOSE 1234 11434 8080
ENTRYPOINT ["tini", "--", "node", "/opt/lmtab/bin/lmtab.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "1234", "--headless", "--profile-dir", "/data/browser"]
