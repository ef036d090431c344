// The Q8_0 x Q8_0 dot product that dominates lmtab's CPU decode (83% of a 350M decode step, measured
// with Chromium's profiler), in four shapes, timed over a weight matrix larger than the caches:
//   1: the instruction sequence of ggml's wasm kernel (ggml_vec_dot_q8_0_q8_0 in arch/wasm/quants.c),
//      written here from its disassembly in lmtab-cpu.wasm, one row per call;
//   2, 4: two or four weight rows per call against one activation block, which is widened once
//         (what a multi-row kernel for decode would save);
//   22: a 2x2 tile (two rows by two tokens, the batched-matmul shape for prompts and batches).
// Written for bench/kernels/run.mjs (emcc -O3 -msimd128, run in Chromium). Not part of the engine.
#include <emscripten.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasm_simd128.h>

typedef struct {
  uint16_t d;
  int8_t qs[32];
} block_q8_0;

#define HSUM(v)                                                                                    \
  (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) + \
   wasm_f32x4_extract_lane(v, 3))

// ggml's wasm build converts fp16 scales through a 64K-entry table, as here.
static float fp16_table[65536];
static inline float fp16(uint16_t h) { return fp16_table[h]; }

static float fp16_compute(uint16_t h) {
  uint32_t sign = (uint32_t) (h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0 && man == 0) {
    bits = sign;
  } else if (exp == 0) {
    exp = 127 - 15 + 1;
    while (!(man & 0x400)) man <<= 1, exp--;
    bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
  } else if (exp == 31) {
    bits = sign | 0x7f800000 | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

// ggml's kernel's sequence: widen both sides to 16 bits, four i32x4.dot_i16x8_s, one scale per block.
__attribute__((noinline)) static float dot_1(int n, const block_q8_0 *restrict x,
                                             const block_q8_0 *restrict y) {
  v128_t sumv = wasm_f32x4_splat(0.0f);
  for (int ib = 0; ib < n / 32; ++ib) {
    const v128_t x0 = wasm_v128_load(x[ib].qs), x1 = wasm_v128_load(x[ib].qs + 16);
    const v128_t y0 = wasm_v128_load(y[ib].qs), y1 = wasm_v128_load(y[ib].qs + 16);
    const v128_t d0l = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x0), wasm_i16x8_extend_low_i8x16(y0));
    const v128_t d0h = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x0), wasm_i16x8_extend_high_i8x16(y0));
    const v128_t d1l = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x1), wasm_i16x8_extend_low_i8x16(y1));
    const v128_t d1h = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x1), wasm_i16x8_extend_high_i8x16(y1));
    const v128_t dots = wasm_i32x4_add(wasm_i32x4_add(d0l, d0h), wasm_i32x4_add(d1l, d1h));
    const float scale = fp16(x[ib].d) * fp16(y[ib].d);
    sumv = wasm_f32x4_add(sumv, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(dots), wasm_f32x4_splat(scale)));
  }
  return HSUM(sumv);
}

// One weight block against activations already widened to 16 bits (a, b: first half; c, d: second).
static inline v128_t block_dot(const block_q8_0 *x, v128_t a, v128_t b, v128_t c, v128_t d) {
  const v128_t x0 = wasm_v128_load(x->qs), x1 = wasm_v128_load(x->qs + 16);
  return wasm_i32x4_add(
      wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x0), a),
                     wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x0), b)),
      wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(x1), c),
                     wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(x1), d)));
}

#define ACCUMULATE(sum, row)                                                                       \
  sum = wasm_f32x4_add(sum, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(block_dot(&row[ib], a, b, c, d)), \
                                           wasm_f32x4_splat(fp16(row[ib].d) * dy)))

#define WIDEN_Y()                                                                                  \
  const v128_t y0 = wasm_v128_load(y[ib].qs), y1 = wasm_v128_load(y[ib].qs + 16);                 \
  const v128_t a = wasm_i16x8_extend_low_i8x16(y0), b = wasm_i16x8_extend_high_i8x16(y0);         \
  const v128_t c = wasm_i16x8_extend_low_i8x16(y1), d = wasm_i16x8_extend_high_i8x16(y1);         \
  const float dy = fp16(y[ib].d)

// Two rows (stride `nb` blocks) against one activation row.
__attribute__((noinline)) static void dot_2(int n, float *s, const block_q8_0 *restrict x,
                                            const block_q8_0 *restrict y) {
  const int nb = n / 32;
  const block_q8_0 *r0 = x, *r1 = x + nb;
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
  for (int ib = 0; ib < nb; ++ib) {
    WIDEN_Y();
    ACCUMULATE(s0, r0);
    ACCUMULATE(s1, r1);
  }
  s[0] = HSUM(s0), s[1] = HSUM(s1);
}

// Four rows against one activation row.
__attribute__((noinline)) static void dot_4(int n, float *s, const block_q8_0 *restrict x,
                                            const block_q8_0 *restrict y) {
  const int nb = n / 32;
  const block_q8_0 *r0 = x, *r1 = x + nb, *r2 = x + 2 * nb, *r3 = x + 3 * nb;
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
  for (int ib = 0; ib < nb; ++ib) {
    WIDEN_Y();
    ACCUMULATE(s0, r0);
    ACCUMULATE(s1, r1);
    ACCUMULATE(s2, r2);
    ACCUMULATE(s3, r3);
  }
  s[0] = HSUM(s0), s[1] = HSUM(s1), s[2] = HSUM(s2), s[3] = HSUM(s3);
}

static inline v128_t half_dot(v128_t xl, v128_t xh, v128_t y) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(xl, wasm_i16x8_extend_low_i8x16(y)),
                        wasm_i32x4_dot_i16x8(xh, wasm_i16x8_extend_high_i8x16(y)));
}

// Two rows by two activation rows (tokens), half a block at a time; s[0], s[1]: token 0, s[ls],
// s[ls + 1]: token 1.
__attribute__((noinline)) static void tile_22(int n, float *s, int ls, const block_q8_0 *restrict x,
                                              const block_q8_0 *restrict y) {
  const int nb = n / 32;
  const block_q8_0 *r0 = x, *r1 = x + nb, *t0 = y, *t1 = y + nb;
  v128_t a00 = wasm_f32x4_splat(0.0f), a01 = a00, a10 = a00, a11 = a00;
  for (int ib = 0; ib < nb; ++ib) {
    v128_t i00 = wasm_i32x4_splat(0), i01 = i00, i10 = i00, i11 = i00;
    for (int half = 0; half < 32; half += 16) {
      const v128_t p = wasm_v128_load(r0[ib].qs + half), q = wasm_v128_load(r1[ib].qs + half);
      const v128_t pl = wasm_i16x8_extend_low_i8x16(p), ph = wasm_i16x8_extend_high_i8x16(p);
      const v128_t ql = wasm_i16x8_extend_low_i8x16(q), qh = wasm_i16x8_extend_high_i8x16(q);
      const v128_t u = wasm_v128_load(t0[ib].qs + half), v = wasm_v128_load(t1[ib].qs + half);
      i00 = wasm_i32x4_add(i00, half_dot(pl, ph, u));
      i01 = wasm_i32x4_add(i01, half_dot(pl, ph, v));
      i10 = wasm_i32x4_add(i10, half_dot(ql, qh, u));
      i11 = wasm_i32x4_add(i11, half_dot(ql, qh, v));
    }
    const float dx0 = fp16(r0[ib].d), dx1 = fp16(r1[ib].d), dy0 = fp16(t0[ib].d), dy1 = fp16(t1[ib].d);
    a00 = wasm_f32x4_add(a00, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(i00), wasm_f32x4_splat(dx0 * dy0)));
    a01 = wasm_f32x4_add(a01, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(i01), wasm_f32x4_splat(dx0 * dy1)));
    a10 = wasm_f32x4_add(a10, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(i10), wasm_f32x4_splat(dx1 * dy0)));
    a11 = wasm_f32x4_add(a11, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(i11), wasm_f32x4_splat(dx1 * dy1)));
  }
  s[0] = HSUM(a00), s[1] = HSUM(a10), s[ls] = HSUM(a01), s[ls + 1] = HSUM(a11);
}

static void call_1(int n, float *s, int ls, const block_q8_0 *x, const block_q8_0 *y) {
  (void) ls;
  s[0] = dot_1(n, x, y);
}
static void call_2(int n, float *s, int ls, const block_q8_0 *x, const block_q8_0 *y) {
  (void) ls;
  dot_2(n, s, x, y);
}
static void call_4(int n, float *s, int ls, const block_q8_0 *x, const block_q8_0 *y) {
  (void) ls;
  dot_4(n, s, x, y);
}

static void fill(block_q8_0 *blocks, size_t count, unsigned *seed) {
  for (size_t i = 0; i < count; i++) {
    blocks[i].d = 0x2000 + (*seed & 0x3ff);
    // Q8_0 quants lie in [-127, 127].
    for (int j = 0; j < 32; j++) *seed = *seed * 1103515245u + 12345u, blocks[i].qs[j] = (int8_t) ((*seed >> 16) % 255 - 127);
  }
}

/**
 * Multiplies `rows` weight rows of `n` elements by `tokens` activation rows, `reps` times, with
 * kernel `shape` (1, 2, 4 or 22). Returns milliseconds; `out[0]` gets a checksum that all shapes
 * must agree on.
 */
EMSCRIPTEN_KEEPALIVE double run(int shape, int n, int rows, int tokens, int reps, double *out) {
  static int ready = 0;
  if (!ready) {
    for (int i = 0; i < 65536; i++) fp16_table[i] = fp16_compute((uint16_t) i);
    ready = 1;
  }
  const int nb = n / 32;
  block_q8_0 *w = malloc((size_t) rows * nb * sizeof(block_q8_0));
  block_q8_0 *y = malloc((size_t) tokens * nb * sizeof(block_q8_0));
  float *s = malloc((size_t) rows * tokens * sizeof(float));
  unsigned seed = 1;
  fill(w, (size_t) rows * nb, &seed);
  fill(y, (size_t) tokens * nb, &seed);
  // Called through a pointer, as ggml's mul_mat calls its vec_dot (and so nothing is inlined).
  void (*volatile kernel)(int, float *, int, const block_q8_0 *, const block_q8_0 *) =
      shape == 1 ? call_1 : shape == 2 ? call_2 : shape == 4 ? call_4 : tile_22;
  const int step = shape == 22 ? 2 : shape;
  const double start = emscripten_get_now();
  for (int rep = 0; rep < reps; rep++) {
    for (int t = 0; t < tokens; t += shape == 22 ? 2 : 1) {
      for (int r = 0; r < rows; r += step) {
        kernel(n, s + (size_t) t * rows + r, rows, w + (size_t) r * nb, y + (size_t) t * nb);
      }
    }
  }
  const double ms = emscripten_get_now() - start;
  double checksum = 0;
  for (size_t i = 0; i < (size_t) rows * tokens; i++) checksum += s[i];
  out[0] = checksum;
  free(w), free(y), free(s);
  return ms;
}
