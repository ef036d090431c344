const key = 'lmtab.api-settings';

/** Settings of the API the engine serves in this browser (the service-worker path). */
export interface ApiSettings {
  /** Largest model file accepted by `POST /api/blobs`, in bytes; absent: the router's default. */
  maxBlobBytes?: number;
}

/** Reads the API settings from localStorage; they apply when the engine next starts. */
export function loadApiSettings(): ApiSettings {
  try {
    const parsed = JSON.parse(localStorage.getItem(key) ?? '{}') as unknown;
    if (typeof parsed !== 'object' || parsed === null) return {};
    const { maxBlobBytes } = parsed as Record<string, unknown>;
    return Number.isSafeInteger(maxBlobBytes) && (maxBlobBytes as number) > 0
      ? { maxBlobBytes: maxBlobBytes as number }
      : {};
  } catch {
    return {};
  }
}

/** Saves the API settings; they apply when the engine next starts (a reload). */
export function saveApiSettings(settings: ApiSettings): void {
  localStorage.setItem(key, JSON.stringify(settings));
}
