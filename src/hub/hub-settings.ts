import { DEFAULT_HUB_ENDPOINT } from './hub-client.js';

/** The person's hub settings, kept in the browser's localStorage. */
export interface HubSettings {
  /** Hub base URL; blank or absent means `https://huggingface.co`. */
  endpoint?: string;
  /** Access token (`hf_...`) for gated and private repositories. */
  token?: string;
}

const key = 'lmtab.hub-settings';
/** BroadcastChannel on which saved settings reach other tabs and the engine worker. */
export const hubSettingsChannel = 'lmtab-hub-settings';

/** The part of Web Storage the settings use; Node and workers have none. */
interface SettingsStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The page's localStorage, typed here so that the hub also compiles for Node without the DOM. */
const pageStorage = () => (globalThis as { localStorage?: SettingsStorage }).localStorage;

/** Reads the hub settings from localStorage; empty where there is none (Node, workers). */
export function loadHubSettings(): HubSettings {
  try {
    const parsed = JSON.parse(pageStorage()?.getItem(key) ?? '{}') as unknown;
    if (typeof parsed !== 'object' || parsed === null) return {};
    const { endpoint, token } = parsed as Record<string, unknown>;
    const settings: HubSettings = {};
    if (typeof endpoint === 'string' && endpoint.trim() !== '') settings.endpoint = endpoint.trim();
    if (typeof token === 'string' && token.trim() !== '') settings.token = token.trim();
    return settings;
  } catch {
    return {};
  }
}

/** Saves the hub settings and tells other tabs and the engine worker (they apply at once). */
export function saveHubSettings(settings: HubSettings): void {
  const clean: HubSettings = {};
  if (settings.endpoint?.trim()) clean.endpoint = settings.endpoint.trim();
  if (settings.token?.trim()) clean.token = settings.token.trim();
  pageStorage()?.setItem(key, JSON.stringify(clean));
  if (typeof BroadcastChannel !== 'undefined') {
    const channel = new BroadcastChannel(hubSettingsChannel);
    channel.postMessage(clean);
    channel.close();
  }
}

/** Calls `listener` with the settings whenever another context saves them; returns a stop function. */
export function watchHubSettings(listener: (settings: HubSettings) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const channel = new BroadcastChannel(hubSettingsChannel);
  channel.onmessage = (event: { data: unknown }) => listener(event.data as HubSettings);
  return () => channel.close();
}

/**
 * The headers a request to `url` needs: the token as `Authorization: Bearer`, only when the URL is
 * on the configured hub (a token must never travel to another host).
 */
export function hubHeadersFor(url: string, settings: HubSettings): Record<string, string> {
  if (settings.token === undefined) return {};
  let hubOrigin: string;
  try {
    hubOrigin = new URL(settings.endpoint ?? DEFAULT_HUB_ENDPOINT).origin;
    if (new URL(url).origin !== hubOrigin) return {};
  } catch {
    return {};
  }
  return { Authorization: `Bearer ${settings.token}` };
}
