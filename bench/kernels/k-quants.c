// The K-quant dot products behind Q4_K_M decode on lmtab's CPU build, in three shapes each, timed one
// weight row per call over a matrix larger than the caches (bench/kernels/run-k-quants.mjs):
//   ggml:    the instruction sequence of ggml's wasm kernel (arch/wasm/quants.c at the pinned commit);
//   simd128: Q4_K and Q6_K restructured with plain SIMD128, which Debian's emscripten 3.1.6 can build
//            (sums stay in vectors; Q6_K's 6-bit values unpacked with vector ops instead of a scalar
//            loop over an aux array);
//   lmtab:   the engine's relaxed-SIMD kernels (wasm/kernels/k-quants.c, included);
//   dot-add: Q4_K with relaxed SIMD's 4-product dot with accumulation
//            (i32x4.relaxed_dot_i8x16_i7x16_add_s, vpdpbusd where V8 uses VNNI), each group's scale
//            applied to its 32-bit sums with i32x4.mul: fewer instructions, if V8 emits one for it.
// Built with clang-19 for wasm32 without libc. Not part of the engine.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

// lmtab's engine kernels and ggml's block layouts. Their Q8_0 dot product reads block scales from
// ggml's table of halves at an address compiled in (wasm/kernels/build.sh); here, this module's own
// table, which stays zero: Q8_0 is not timed here (q8_0-tiles.c times it).
static float half_table[65536];
#define LMTAB_F16_TABLE ((uintptr_t) half_table)
#include "../../wasm/kernels/k-quants.c"

// A half to a float, for the ggml and simd128 shapes (ggml's wasm build reads a table instead).
static inline float half_to_float(uint16_t h) {
  return wasm_f32x4_extract_lane(block_scale(&h, make_half_constants()), 0);
}

static inline int32_t sum_i32x4(v128_t v) {
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(v, 0);
}



static void q4_K_scales(const uint8_t *packed, uint8_t *scales, uint8_t *mins) {
  for (int j = 0; j < 8; j++) {
    if (j < 4) {
      scales[j] = packed[j] & 63, mins[j] = packed[j + 4] & 63;
    } else {
      scales[j] = (packed[j + 4] & 0xF) | ((packed[j - 4] >> 6) << 4);
      mins[j] = (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
    }
  }
}

// ---- Q4_K x Q8_K ----

static float q4_K_ggml(int n, const block_q4_K *restrict x, const block_q8_K *restrict y) {
  static const uint32_t kmask1 = 0x3f3f3f3f, kmask2 = 0x0f0f0f0f, kmask3 = 0x03030303;
  uint32_t utmp[4];
  const uint8_t *scales = (const uint8_t *) &utmp[0];
  float sumf = 0;
  for (int i = 0; i < n / QK_K; ++i) {
    const float d = y[i].d * half_to_float(x[i].d), dmin = y[i].d * half_to_float(x[i].dmin);
    const uint8_t *restrict q4 = x[i].qs;
    const int8_t *restrict q8 = y[i].qs;
    __builtin_memcpy(utmp, x[i].scales, 12);
    utmp[3] = ((utmp[2] >> 4) & kmask2) | (((utmp[1] >> 6) & kmask3) << 4);
    const uint32_t uaux = utmp[1] & kmask1;
    utmp[1] = (utmp[2] & kmask2) | (((utmp[0] >> 6) & kmask3) << 4);
    utmp[2] = uaux;
    utmp[0] &= kmask1;
    int32_t sumi = 0;
    const uint8_t *m = (const uint8_t *) &utmp[2];
    for (int j = 0; j < 16; j += 2) sumi += (y[i].bsums[j] + y[i].bsums[j + 1]) * m[j / 2];
    sumf -= dmin * sumi;
    int32_t sumi1 = 0, sumi2 = 0;
    for (int j = 0; j < QK_K / 64; ++j) {
      const v128_t q4x0 = wasm_v128_load(q4), q4x1 = wasm_v128_load(q4 + 16);
      q4 += 32;
      const v128_t q4l0 = wasm_v128_and(q4x0, wasm_i8x16_splat(0x0F)), q4h0 = wasm_u8x16_shr(q4x0, 4);
      const v128_t q4l1 = wasm_v128_and(q4x1, wasm_i8x16_splat(0x0F)), q4h1 = wasm_u8x16_shr(q4x1, 4);
      const v128_t q8x0 = wasm_v128_load(q8), q8x1 = wasm_v128_load(q8 + 16);
      const v128_t q8x2 = wasm_v128_load(q8 + 32), q8x3 = wasm_v128_load(q8 + 48);
      q8 += 64;
      v128_t vacc1 = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4l0), wasm_i16x8_extend_low_i8x16(q8x0));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4l0), wasm_i16x8_extend_high_i8x16(q8x0)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4l1), wasm_i16x8_extend_low_i8x16(q8x1)));
      vacc1 = wasm_i32x4_add(vacc1, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4l1), wasm_i16x8_extend_high_i8x16(q8x1)));
      v128_t vacc2 = wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4h0), wasm_i16x8_extend_low_i8x16(q8x2));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4h0), wasm_i16x8_extend_high_i8x16(q8x2)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q4h1), wasm_i16x8_extend_low_i8x16(q8x3)));
      vacc2 = wasm_i32x4_add(vacc2, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q4h1), wasm_i16x8_extend_high_i8x16(q8x3)));
      sumi1 += (wasm_i32x4_extract_lane(vacc1, 0) + wasm_i32x4_extract_lane(vacc1, 1) + wasm_i32x4_extract_lane(vacc1, 2) +
                wasm_i32x4_extract_lane(vacc1, 3)) * scales[2 * j];
      sumi2 += (wasm_i32x4_extract_lane(vacc2, 0) + wasm_i32x4_extract_lane(vacc2, 1) + wasm_i32x4_extract_lane(vacc2, 2) +
                wasm_i32x4_extract_lane(vacc2, 3)) * scales[2 * j + 1];
    }
    sumf += d * (sumi1 + sumi2);
  }
  return sumf;
}


// The same sums, each 32-value group scaled in a vector, one horizontal sum per 256 values.
static float q4_K_simd128(int n, const block_q4_K *restrict x, const block_q8_K *restrict y) {
  float sumf = 0;
  const v128_t mask = wasm_i8x16_splat(0x0F);
  for (int i = 0; i < n / QK_K; ++i) {
    uint8_t scales[8], mins[8];
    q4_K_scales(x[i].scales, scales, mins);
    int32_t summ = 0;
    for (int j = 0; j < 8; j++) summ += (y[i].bsums[2 * j] + y[i].bsums[2 * j + 1]) * mins[j];
    const uint8_t *restrict q4 = x[i].qs;
    const int8_t *restrict q8 = y[i].qs;
    v128_t acc = wasm_i32x4_splat(0);
    for (int j = 0; j < QK_K / 64; ++j) {
      const v128_t q4x0 = wasm_v128_load(q4), q4x1 = wasm_v128_load(q4 + 16);
      q4 += 32;
      const v128_t q8x0 = wasm_v128_load(q8), q8x1 = wasm_v128_load(q8 + 16);
      const v128_t q8x2 = wasm_v128_load(q8 + 32), q8x3 = wasm_v128_load(q8 + 48);
      q8 += 64;
      const v128_t l0 = wasm_v128_and(q4x0, mask), h0 = wasm_u8x16_shr(q4x0, 4);
      const v128_t l1 = wasm_v128_and(q4x1, mask), h1 = wasm_u8x16_shr(q4x1, 4);
      v128_t lo = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(l0), wasm_i16x8_extend_low_i8x16(q8x0)),
                                 wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(l0), wasm_i16x8_extend_high_i8x16(q8x0)));
      lo = wasm_i32x4_add(lo, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(l1), wasm_i16x8_extend_low_i8x16(q8x1)),
                                             wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(l1), wasm_i16x8_extend_high_i8x16(q8x1))));
      v128_t hi = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(h0), wasm_i16x8_extend_low_i8x16(q8x2)),
                                 wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(h0), wasm_i16x8_extend_high_i8x16(q8x2)));
      hi = wasm_i32x4_add(hi, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(h1), wasm_i16x8_extend_low_i8x16(q8x3)),
                                             wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(h1), wasm_i16x8_extend_high_i8x16(q8x3))));
      acc = wasm_i32x4_add(acc, wasm_i32x4_add(wasm_i32x4_mul(lo, wasm_i32x4_splat(scales[2 * j])),
                                               wasm_i32x4_mul(hi, wasm_i32x4_splat(scales[2 * j + 1]))));
    }
    const float d = y[i].d * half_to_float(x[i].d), dmin = y[i].d * half_to_float(x[i].dmin);
    sumf += d * sum_i32x4(acc) - dmin * summ;
  }
  return sumf;
}

// lmtab's engine kernels, called as ggml calls them: through a function pointer (a table slot),
// so that clang compiles them as the engine gets them, not inlined here with nrc known.
typedef void (*vec_dot_fn)(int, float *, size_t, const void *, size_t, const void *, size_t, int);
static vec_dot_fn volatile q4_K_engine = lmtab_vec_dot_q4_K_q8_K;
static vec_dot_fn volatile q6_K_engine = lmtab_vec_dot_q6_K_q8_K;

static float q4_K_lmtab(int n, const block_q4_K *restrict x, const block_q8_K *restrict y) {
  float s;
  q4_K_engine(n, &s, 0, x, 0, y, 0, 1);
  return s;
}

static float q6_K_lmtab(int n, const block_q6_K *restrict x, const block_q8_K *restrict y) {
  float s;
  q6_K_engine(n, &s, 0, x, 0, y, 0, 1);
  return s;
}

// Q4_K with i32x4.relaxed_dot_i8x16_i7x16_add_s: 16 bytes to 4 sums of 4 products in one step (exact
// here: the values lie in [0, 15]), each 32-value group's sums then scaled with i32x4.mul.
static inline v128_t q4_K_block_dot_add(const block_q4_K *x, const block_q8_K *y, v128_t *mins_sums) {
  const v128_t packed = q4_K_scales_and_mins(x->scales, make_q4_K_constants());
  const v128_t scales = wasm_u16x8_extend_low_u8x16(packed), mins = wasm_u16x8_extend_high_u8x16(packed);
  const v128_t scales_low = wasm_u32x4_extend_low_u16x8(scales), scales_high = wasm_u32x4_extend_high_u16x8(scales);
  *mins_sums = q4_K_mins_sums(y, mins);
  const v128_t mask = wasm_i8x16_splat(0x0f), zero = wasm_i32x4_splat(0);
  const uint8_t *q4 = x->qs;
  const int8_t *q8 = y->qs;
  v128_t acc = zero;
#define DOT_ADD(a, v, c) wasm_i32x4_relaxed_dot_i8x16_i7x16_add(wasm_v128_load(a), v, c)
#define GROUPS(j, sc, l)                                                                           \
  do {                                                                                             \
    const v128_t v0 = wasm_v128_load(q4 + 32 * (j)), v1 = wasm_v128_load(q4 + 32 * (j) + 16);      \
    const v128_t low = DOT_ADD(q8 + 64 * (j) + 16, wasm_v128_and(v1, mask),                        \
                               DOT_ADD(q8 + 64 * (j), wasm_v128_and(v0, mask), zero));             \
    const v128_t high = DOT_ADD(q8 + 64 * (j) + 48, wasm_u8x16_shr(v1, 4),                         \
                                DOT_ADD(q8 + 64 * (j) + 32, wasm_u8x16_shr(v0, 4), zero));         \
    acc = wasm_i32x4_add(acc, wasm_i32x4_add(wasm_i32x4_mul(low, wasm_i32x4_shuffle(sc, sc, l, l, l, l)), \
                                             wasm_i32x4_mul(high, wasm_i32x4_shuffle(sc, sc, l + 1, l + 1, l + 1, l + 1)))); \
  } while (0)
  GROUPS(0, scales_low, 0);
  GROUPS(1, scales_low, 2);
  GROUPS(2, scales_high, 0);
  GROUPS(3, scales_high, 2);
#undef GROUPS
#undef DOT_ADD
  return acc;
}

static float q4_K_dot_add(int n, const block_q4_K *restrict x, const block_q8_K *restrict y) {
  const half_constants k = make_half_constants();
  float sum = 0;
  for (int i = 0; i < n / QK_K; ++i) {
    v128_t mins_sums;
    const v128_t dots = q4_K_block_dot_add(&x[i], &y[i], &mins_sums);
    const v128_t halves = wasm_u32x4_extend_low_u16x8(wasm_v128_load32_zero(&x[i].d));
    sum = q4_K_add_blocks(sum, q4_K_scaled_sums(q4_K_block_sums(dots, mins_sums), wasm_i32x4_splat(0),
                                                halves, scale_pairs(&y[i].d, NULL), k));
  }
  return sum;
}

// ---- Q6_K x Q8_K ----

static float q6_K_ggml(int n, const block_q6_K *restrict x, const block_q8_K *restrict y) {
  int8_t aux8[QK_K] __attribute__((aligned(16)));
  int32_t aux32[8] __attribute__((aligned(16))) = {0};
  float sums[8] __attribute__((aligned(16))) = {0};
  for (int i = 0; i < n / QK_K; ++i) {
    const uint8_t *restrict q4 = x[i].ql;
    const uint8_t *restrict qh = x[i].qh;
    int8_t *a = aux8;
    for (int j = 0; j < QK_K; j += 128) {
      for (int l = 0; l < 32; ++l) {
        a[l + 0] = (int8_t) ((q4[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        a[l + 32] = (int8_t) ((q4[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        a[l + 64] = (int8_t) ((q4[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        a[l + 96] = (int8_t) ((q4[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      }
      a += 128, q4 += 64, qh += 32;
    }
    const int8_t *restrict a_ptr = aux8;
    const int8_t *restrict q8 = y[i].qs;
    v128_t acc0 = wasm_i32x4_splat(0), acc1 = wasm_i32x4_splat(0);
    for (int j = 0; j < QK_K / 16; ++j) {
      const v128_t vscale = wasm_i32x4_splat(x[i].scales[j]);
      const v128_t a_vec = wasm_v128_load(a_ptr), q8_vec = wasm_v128_load(q8);
      const v128_t prod_low = wasm_i16x8_mul(wasm_i16x8_extend_low_i8x16(a_vec), wasm_i16x8_extend_low_i8x16(q8_vec));
      const v128_t prod_high = wasm_i16x8_mul(wasm_i16x8_extend_high_i8x16(a_vec), wasm_i16x8_extend_high_i8x16(q8_vec));
      const v128_t lo_lo = wasm_i32x4_mul(wasm_i32x4_extend_low_i16x8(prod_low), vscale);
      const v128_t lo_hi = wasm_i32x4_mul(wasm_i32x4_extend_high_i16x8(prod_low), vscale);
      const v128_t hi_lo = wasm_i32x4_mul(wasm_i32x4_extend_low_i16x8(prod_high), vscale);
      const v128_t hi_hi = wasm_i32x4_mul(wasm_i32x4_extend_high_i16x8(prod_high), vscale);
      acc0 = wasm_i32x4_add(acc0, wasm_i32x4_add(lo_lo, hi_lo));
      acc1 = wasm_i32x4_add(acc1, wasm_i32x4_add(lo_hi, hi_hi));
      a_ptr += 16, q8 += 16;
    }
    wasm_v128_store(&aux32[0], acc0);
    wasm_v128_store(&aux32[4], acc1);
    const float d = half_to_float(x[i].d) * y[i].d;
    for (int l = 0; l < 8; ++l) sums[l] += d * aux32[l];
  }
  float sumf = 0;
  for (int l = 0; l < 8; ++l) sumf += sums[l];
  return sumf;
}

// The four 16-value groups of 6-bit values (0 to 63) that one 16-byte slice of ql and qh holds.
#define Q6_UNPACK(ql, qh, off)                                                                      \
  const v128_t lo4 = wasm_v128_load(ql + off), hi4 = wasm_v128_load(ql + 32 + off);                 \
  const v128_t hb = wasm_v128_load(qh + off);                                                       \
  const v128_t m4 = wasm_i8x16_splat(0x0F), m2 = wasm_i8x16_splat(0x30);                            \
  const v128_t v0 = wasm_v128_or(wasm_v128_and(lo4, m4), wasm_v128_and(wasm_i8x16_shl(hb, 4), m2)); \
  const v128_t v1 = wasm_v128_or(wasm_v128_and(hi4, m4), wasm_v128_and(wasm_i8x16_shl(hb, 2), m2)); \
  const v128_t v2 = wasm_v128_or(wasm_u8x16_shr(lo4, 4), wasm_v128_and(hb, m2));                    \
  const v128_t v3 = wasm_v128_or(wasm_u8x16_shr(hi4, 4), wasm_v128_and(wasm_u8x16_shr(hb, 2), m2))

static inline v128_t dot16_u(v128_t u, v128_t s) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(u), wasm_i16x8_extend_low_i8x16(s)),
                        wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(u), wasm_i16x8_extend_high_i8x16(s)));
}

// The sum of (q - 32) * a is the sum of q * a less 32 times the activations' 16-value sums, which
// Q8_K carries (bsums); the 16 scales meet those sums in two 16-bit dots.
static inline int32_t q6_K_offsets(const block_q6_K *x, const block_q8_K *y) {
  const v128_t sc = wasm_v128_load(x->scales);
  const v128_t dots = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(sc), wasm_v128_load(y->bsums)),
                                     wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(sc), wasm_v128_load(y->bsums + 8)));
  return 32 * sum_i32x4(dots);
}

static float q6_K_simd128(int n, const block_q6_K *restrict x, const block_q8_K *restrict y) {
  float sumf = 0;
  for (int i = 0; i < n / QK_K; ++i) {
    const uint8_t *restrict ql = x[i].ql;
    const uint8_t *restrict qh = x[i].qh;
    const int8_t *restrict q8 = y[i].qs;
    const int8_t *restrict sc = x[i].scales;
    v128_t acc = wasm_i32x4_splat(0);
    for (int half = 0; half < 2; half++) {
      for (int off = 0; off < 32; off += 16) {
        Q6_UNPACK(ql, qh, off);
        // Values at off + 0, 32, 64, 96 within this 128: groups off / 16 + 0, 2, 4, 6.
        const int g = off / 16;
        acc = wasm_i32x4_add(acc, wasm_i32x4_mul(dot16_u(v0, wasm_v128_load(q8 + off)), wasm_i32x4_splat(sc[g])));
        acc = wasm_i32x4_add(acc, wasm_i32x4_mul(dot16_u(v1, wasm_v128_load(q8 + off + 32)), wasm_i32x4_splat(sc[g + 2])));
        acc = wasm_i32x4_add(acc, wasm_i32x4_mul(dot16_u(v2, wasm_v128_load(q8 + off + 64)), wasm_i32x4_splat(sc[g + 4])));
        acc = wasm_i32x4_add(acc, wasm_i32x4_mul(dot16_u(v3, wasm_v128_load(q8 + off + 96)), wasm_i32x4_splat(sc[g + 6])));
      }
      ql += 64, qh += 32, q8 += 128, sc += 8;
    }
    const int32_t sumi = sum_i32x4(acc) - q6_K_offsets(&x[i], &y[i]);
    sumf += half_to_float(x[i].d) * y[i].d * sumi;
  }
  return sumf;
}

// ---- the bench ----

static uint8_t arena[96 << 20] __attribute__((aligned(16)));
static block_q8_K act_k[8];
static uint32_t seed = 1;
static uint32_t next(void) { return seed = seed * 1103515245u + 12345u, seed >> 8; }

typedef float (*kernel_fn)(int, const void *, const void *);

// Kernels by number: type * 4 + shape; type 0 Q4_K, 1 Q6_K; shape 0 ggml, 1 simd128, 2 lmtab
// (relaxed SIMD), 3 dot-add (Q4_K only).
static kernel_fn kernel(int which) {
  switch (which) {
    case 0: return (kernel_fn) q4_K_ggml;
    case 1: return (kernel_fn) q4_K_simd128;
    case 2: return (kernel_fn) q4_K_lmtab;
    case 3: return (kernel_fn) q4_K_dot_add;
    case 4: return (kernel_fn) q6_K_ggml;
    case 5: return (kernel_fn) q6_K_simd128;
    case 6: return (kernel_fn) q6_K_lmtab;
    default: return 0;
  }
}

static int row_bytes(int type, int n) { return n / QK_K * (type == 0 ? 144 : 210); }

static uint16_t small_half(void) { return 0x2000 + (next() & 0x3ff); }

// Q6_K's super-block scales in real files are mostly subnormal halves (a weight's scale of about
// 0.002 over 128 steps), which a kernel must convert without subnormal float arithmetic.
static uint16_t subnormal_half(void) { return 0x0100 + (next() & 0x2ff); }

/** Fills the arena with weights of `type` (0 Q4_K, 1 Q6_K) in rows of `n`; returns the rows. */
__attribute__((export_name("prepare"))) int prepare(int type, int n) {
  seed = 1;
  const int rows = (64 << 20) / row_bytes(type, n);
  for (int b = 0; b < rows * n / QK_K; b++) {
    if (type == 0) {
      block_q4_K *x = (block_q4_K *) arena + b;
      x->d = small_half(), x->dmin = small_half();
      for (int j = 0; j < 12; j++) x->scales[j] = next();
      for (int j = 0; j < QK_K / 2; j++) x->qs[j] = next();
    } else {
      block_q6_K *x = (block_q6_K *) arena + b;
      for (int j = 0; j < QK_K / 2; j++) x->ql[j] = next();
      for (int j = 0; j < QK_K / 4; j++) x->qh[j] = next();
      for (int j = 0; j < QK_K / 16; j++) x->scales[j] = (int8_t) next();
      x->d = subnormal_half();
    }
  }
  for (int b = 0; b < n / QK_K; b++) {
    act_k[b].d = 0.01f;
    for (int j = 0; j < QK_K; j++) act_k[b].qs[j] = (int8_t) (next() % 255 - 127);
    for (int g = 0; g < QK_K / 16; g++) {
      int sum = 0;
      for (int j = 0; j < 16; j++) sum += act_k[b].qs[g * 16 + j];
      act_k[b].bsums[g] = (int16_t) sum;
    }
  }
  return rows;
}

/** Runs kernel `which` over `rows` rows of `n` once; returns the sum of the row results (-1: none). */
__attribute__((export_name("run"))) double run(int which, int n, int rows) {
  kernel_fn volatile f = kernel(which);
  if (!f) return -1;
  const int type = which / 4, stride = row_bytes(type, n);
  double sum = 0;
  for (int r = 0; r < rows; r++) sum += f(n, arena + (size_t) r * stride, act_k);
  return sum;
}
