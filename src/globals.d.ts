/** The build's id (package version, or `LMTAB_BUILD_ID` at build time), set by vite.config.ts. */
declare const __LMTAB_BUILD__: string;

declare module 'virtual:web-llm-catalog' {
  import type { AppConfig } from '@mlc-ai/web-llm';
  /** web-llm's `prebuiltAppConfig`, read at build time from the pinned package (vite.config.ts). */
  const prebuiltAppConfig: AppConfig;
  export default prebuiltAppConfig;
}
