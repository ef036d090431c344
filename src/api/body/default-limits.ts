// The router's and the relay's limits, written once: the CLI's help prints them from here too.

/** Largest request body (and largest image) the router and the relay accept: 32 MiB, in bytes. */
export const defaultMaxBodyBytes = 32 * 1024 * 1024;

/** Largest model file uploaded to `/api/blobs`: 64 GiB, in bytes (the storage quota decides first). */
export const defaultMaxBlobBytes = 64 * 1024 ** 3;

/**
 * How long an upload to `/api/blobs` waits for an `/api/create` to use it: one hour, in
 * milliseconds, from the end of the upload. Then it is removed by the next upload, blob check or
 * create, or when an engine host starts; a create uses only the uploads its `files` name.
 */
export const unusedUploadKeepMs = 60 * 60 * 1000;
