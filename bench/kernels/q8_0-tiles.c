// lmtab's Q8_0 dot product (wasm/kernels/k-quants.c, included) in its three shapes, for four tokens
// at once (four clients' decode step, or a prompt), timed by bench/kernels/run-q8_0-tiles.mjs over
// 1,024 rows of 1,024 values (1.1 MB of Q8_0, in L2: the kernel's compute alone):
//   rows:  the one-row path, 8 calls per 2 rows;
//   2x2:   ggml's tile of 2 rows by 2 tokens (nrc 2), 2 calls per 2 rows;
//   4x4:   the tile of 4 rows by 4 tokens (nrc 4) that lmtab's edit of ggml's mul_mat hands the
//          kernel: two tiles of 2 rows by 4 tokens, each block's weights prepared once for 8
//          products, its two halves in turn. 1 call per 4 rows.
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

// The engine's kernel as ggml calls it: through a function pointer, so clang compiles it as the
// engine gets it, not inlined here with nrc known.
typedef void (*vec_dot_fn)(int, float *, size_t, const void *, size_t, const void *, size_t, int);
static vec_dot_fn volatile engine = lmtab_vec_dot_q8_0_q8_0;

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

/** Every weight row against the 4 tokens in shape 0 (rows), 1 (2x2) or 2 (4x4). */
__attribute__((export_name("run"))) void run(int shape) {
  float *out = results[shape];
  const int rows = shape == 2 ? 4 : 2;
  for (int r = 0; r < ROWS; r += rows) {
    const char *x = (const char *) weights + r * ROW_BYTES;
    if (shape == 2) {
      engine(N, &out[r], ROWS, x, ROW_BYTES, activations, ROW_BYTES, 4);
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
