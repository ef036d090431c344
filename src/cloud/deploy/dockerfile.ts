import { CHROMIUM_ARGS_ENV, CONTAINER_CHROMIUM_ARGS } from '../chromium-args.js';
import { defaultRelayPort } from '../../relay/index.js';
import { CONTAINER_PORT, OLLAMA_PORT } from '../cloud-defaults.js';
import { DATA_DIR } from './knative-service.js';

/** Options of {@link renderDockerfile}. */
export interface DockerfileOptions {
  /**
   * `source`: build lmtab from its repository (the repository's own Dockerfile). `prebuilt`: the
   * build context holds the built lmtab package in `lmtab/` (what `lmtab cloud deploy` writes).
   */
  from: 'source' | 'prebuilt';
}

const base = 'node:20-bookworm-slim';

/**
 * The lmtab image: Node 20, lmtab built, Debian's Chromium (with the Vulkan loader for GPUs), and
 * a volume at /data for the browser profile, so downloaded weights outlive the container. The
 * same image serves locally (`serve`, the default command), runs app replicas and the gateway.
 */
export function renderDockerfile(options: DockerfileOptions): string {
  const source = options.from === 'source';
  const copy = (path: string) =>
    source ? `COPY --from=build /src/${path} ./${path}` : `COPY lmtab/${path} ./${path}`;
  const lines = [
    '# syntax=docker/dockerfile:1',
    source
      ? '# lmtab: `docker build -t lmtab .`, then `docker run -p 1234:1234 -v lmtab-data:/data lmtab`.'
      : '# Written by `lmtab cloud deploy`: the lmtab image for the app replicas and the gateway.',
    ...(source
      ? [
          `FROM ${base} AS build`,
          'WORKDIR /src',
          'COPY package.json package-lock.json ./',
          'RUN npm ci',
          'COPY . .',
          'RUN npm run build',
          '',
        ]
      : []),
    `FROM ${base}`,
    '# Chromium runs the engine; libvulkan1 lets it reach an NVIDIA GPU through Vulkan; tini reaps',
    '# the browser processes and passes signals on.',
    'RUN apt-get update \\',
    '  && apt-get install -y --no-install-recommends chromium libvulkan1 ca-certificates tini \\',
    '  && rm -rf /var/lib/apt/lists/*',
    'ENV NODE_ENV=production \\',
    `  LMTAB_HOME=${DATA_DIR} \\`,
    '  LMTAB_BROWSER=/usr/bin/chromium \\',
    `  ${CHROMIUM_ARGS_ENV}="${CONTAINER_CHROMIUM_ARGS.join(' ')}" \\`,
    '  NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics',
    'WORKDIR /opt/lmtab',
    source
      ? 'COPY --from=build /src/package.json /src/package-lock.json ./'
      : 'COPY lmtab/package*.json ./',
    source
      ? 'RUN npm ci --omit=dev && npm cache clean --force'
      : 'RUN if [ -f package-lock.json ]; then npm ci --omit=dev; else npm install --omit=dev; fi \\\n  && npm cache clean --force',
    copy('bin'),
    copy('build'),
    copy('dist'),
    `RUN ln -s /opt/lmtab/bin/lmtab.js /usr/local/bin/lmtab && mkdir -p ${DATA_DIR} && chown node:node ${DATA_DIR}`,
    'USER node',
    `VOLUME ["${DATA_DIR}"]`,
    `# ${defaultRelayPort}: lmtab and OpenAI clients; ${OLLAMA_PORT}: Ollama clients; ${CONTAINER_PORT}: inside Kubernetes.`,
    `EXPOSE ${defaultRelayPort} ${OLLAMA_PORT} ${CONTAINER_PORT}`,
    'ENTRYPOINT ["tini", "--", "node", "/opt/lmtab/bin/lmtab.js"]',
    // The headless engine's profile on the volume: downloaded weights outlive the container.
    `CMD ["serve", "--host", "0.0.0.0", "--port", "${defaultRelayPort}", "--headless", "--profile-dir", "${DATA_DIR}/browser"]`,
    '',
  ];
  return lines.join('\n');
}

/** The `.dockerignore` next to a Dockerfile made by {@link renderDockerfile}. */
export function renderDockerignore(options: DockerfileOptions): string {
  return options.from === 'source'
    ? [
        '.git',
        'node_modules',
        'dist',
        'build',
        'reports',
        'test-results',
        'playwright-report',
        'tests/.cache',
        'bench/.cache',
        '',
      ].join('\n')
    : ['k8s', 'README.md', 'lmtab/node_modules', ''].join('\n');
}
