// Cloud mode's defaults, written once: the manifests, the Dockerfile and the gateway read them here.

/** The port every lmtab container listens on inside the cluster: the app replicas and the gateway. */
export const CONTAINER_PORT = 8080;

/** The gateway's replicas: one can restart while the other serves. */
export const GATEWAY_REPLICAS = 2;

/** The port Ollama's clients use by default, which the image also exposes. */
export const OLLAMA_PORT = 11434;
