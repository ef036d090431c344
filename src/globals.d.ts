/** The build's id (package version, or `LMTAB_BUILD_ID` at build time), set by vite.config.ts. */
declare const __LMTAB_BUILD__: string;
