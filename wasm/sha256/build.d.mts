// Types of wasm/sha256/build.mjs for its test.
/** The TypeScript source of src/store/sha256-blocks-wasm.ts, assembled from sha256-blocks.wat. */
export declare function sha256BlocksSource(): Promise<string>;
