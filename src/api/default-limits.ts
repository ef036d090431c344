// The router's and the relay's limits, written once: the CLI's help prints them from here too.

/** Largest request body (and largest image) the router and the relay accept: 32 MiB, in bytes. */
export const defaultMaxBodyBytes = 32 * 1024 * 1024;

/** Largest model file uploaded to `/api/blobs`: 64 GiB, in bytes (the storage quota decides first). */
export const defaultMaxBlobBytes = 64 * 1024 ** 3;
