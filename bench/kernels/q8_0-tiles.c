// lmtab's Q8_0 dot product (wasm/kernels/k-quants.c, included) in ggml's shapes against a tile of 2
// weight rows by 4 tokens, for four tokens at once (four clients' decode step, or a prompt), timed
// by bench/kernels/run-q8_0-tiles.mjs over 1,024 rows of 1,024 values (1.1 MB of Q8_0, in L2: the
// kernel's compute alone):
//   rows:  the engine's one-row path, 8 calls per 2 rows;
//   2x2:   the engine's tile of 2 rows by 2 tokens (ggml's nrc 2), 2 calls per 2 rows;
//   2x4:   2 rows by 4 tokens, each block's weights prepared once for 8 products and its two halves
//          taken in turn (16 vector registers do not hold both halves' prepared weights and 8 sums).
//          ggml's mul_mat has no such shape (its tiles are square): the engine does not use it.
// Built with clang-19 for wasm32 without libc. Not part of the engine.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

// The kernels read block scales from ggml's table of halves at a fixed address; here, this one's.
static float half_table[65536];
#define LMTAB_F16_TABLE ((uintptr_t) half_table)
#include "../../wasm/kernels/k-quants.c"

#define ROWS 1024
#define N 1024
#define TOKENS 4
#define ROW_BYTES ((N / 32) * sizeof(block_q8_0))

// Rows x0 and x1 against 4 activation rows y (by bytes apart): out[r * 4 + c] = x_r . y_c, each the
// 2x2 tile's sum to the bit (the same block sums, scaled and added in the same order).
static void tile_2x4(const block_q8_0 *x0, const block_q8_0 *x1, const block_q8_0 *y, size_t by,
                     float *out) {
  const q8_0_constants k = make_q8_0_constants();
  const block_q8_0 *ys[TOKENS];
  for (int c = 0; c < TOKENS; ++c) ys[c] = (const block_q8_0 *) ((const char *) y + c * by);
  v128_t total0 = wasm_f32x4_splat(0), total1 = wasm_f32x4_splat(0);
  for (int b = 0; b < N / 32; ++b) {
    v128_t sums[2 * TOKENS];
    for (int i = 0; i < 2 * TOKENS; ++i) sums[i] = splat_i32(0);
    // The engine kernel's helpers, one half at a time: the other half's loads are dead and dropped.
    for (int h = 0; h < 2; ++h) {
      const q8_0_weights w0 = q8_0_load(&x0[b], k), w1 = q8_0_load(&x1[b], k);
      for (int c = 0; c < TOKENS; ++c) {
        const q8_0_activations a = q8_0_activations_load(&ys[c][b]);
        sums[c] = wasm_i32x4_add(sums[c], q8_0_half_dot(w0, a, h, k));
        sums[TOKENS + c] = wasm_i32x4_add(sums[TOKENS + c], q8_0_half_dot(w1, a, h, k));
      }
    }
    const v128_t d = wasm_f32x4_make(half_value(&ys[0][b].d), half_value(&ys[1][b].d),
                                     half_value(&ys[2][b].d), half_value(&ys[3][b].d));
    const v128_t block0 = add_lanes4(sums[0], sums[1], sums[2], sums[3]);
    const v128_t block1 = add_lanes4(sums[4], sums[5], sums[6], sums[7]);
    total0 = wasm_f32x4_add(total0, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(block0),
                                                   wasm_f32x4_mul(wasm_f32x4_splat(half_value(&x0[b].d)), d)));
    total1 = wasm_f32x4_add(total1, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(block1),
                                                   wasm_f32x4_mul(wasm_f32x4_splat(half_value(&x1[b].d)), d)));
  }
  wasm_v128_store(out, total0);
  wasm_v128_store(out + 4, total1);
}

// The engine's kernel as ggml calls it: through a function pointer, so clang compiles it as the
// engine gets it, not inlined here with nrc known.
typedef void (*vec_dot_fn)(int, float *, size_t, const void *, size_t, const void *, size_t, int);
static vec_dot_fn volatile engine = lmtab_vec_dot_q8_0_q8_0;
static void (*volatile tile_2x4_call)(const block_q8_0 *, const block_q8_0 *, const block_q8_0 *,
                                      size_t, float *) = tile_2x4;

static block_q8_0 weights[ROWS * (N / 32)];
static block_q8_0 activations[TOKENS * (N / 32)];
static float results[3][TOKENS * ROWS];
static uint32_t state = 1;

static uint32_t next(void) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}

/** Fills the table of halves (normal floats), the weights and the activations ([-127, 127]). */
__attribute__((export_name("prepare"))) void prepare(void) {
  for (int i = 0; i < 65536; ++i) half_table[i] = (float) (i % 977 + 1) * 1e-4f;
  block_q8_0 *blocks[2] = {weights, activations};
  const size_t counts[2] = {ROWS * (N / 32), TOKENS * (N / 32)};
  for (int m = 0; m < 2; ++m) {
    for (size_t b = 0; b < counts[m]; ++b) {
      blocks[m][b].d = (uint16_t) next();
      for (int j = 0; j < 32; ++j) blocks[m][b].qs[j] = (int8_t) (next() % 255 - 127);
    }
  }
}

/** Every weight row against the 4 tokens in shape 0 (rows), 1 (2x2) or 2 (2x4). */
__attribute__((export_name("run"))) void run(int shape) {
  float *out = results[shape];
  for (int r = 0; r < ROWS; r += 2) {
    const char *x = (const char *) weights + r * ROW_BYTES;
    if (shape == 2) {
      float tile[2 * TOKENS];
      tile_2x4_call((const block_q8_0 *) x, (const block_q8_0 *) (x + ROW_BYTES), activations,
                    ROW_BYTES, tile);
      for (int c = 0; c < TOKENS; ++c) out[c * ROWS + r] = tile[c], out[c * ROWS + r + 1] = tile[TOKENS + c];
    } else {
      for (int c = 0; c < TOKENS; c += shape == 1 ? 2 : 1) {
        const char *y = (const char *) activations + c * ROW_BYTES;
        if (shape == 1) {
          engine(N, &out[c * ROWS + r], ROWS, x, ROW_BYTES, y, ROW_BYTES, 2);
        } else {
          engine(N, &out[c * ROWS + r], 0, x, 0, y, 0, 1);
          engine(N, &out[c * ROWS + r + 1], 0, x + ROW_BYTES, 0, y, 0, 1);
        }
      }
    }
  }
}

/** How many of shape `shape`'s products differ from the 2x2 tile's in any bit. */
__attribute__((export_name("differences"))) int differences(int shape) {
  int count = 0;
  for (int i = 0; i < TOKENS * ROWS; ++i)
    count += __builtin_bit_cast(uint32_t, results[shape][i]) != __builtin_bit_cast(uint32_t, results[1][i]);
  return count;
}
