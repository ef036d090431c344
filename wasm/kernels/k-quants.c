// lmtab's K-quant dot products for its CPU build, compiled by clang-19 with relaxed SIMD
// (wasm/kernels/build.sh) into a module of their own, lmtab-kernels.wasm. The glue puts them in
// place of ggml's own kernels in the engine's function table where the browser has relaxed SIMD
// (wasm/kernel-table.mjs, wasm/glue-patches.mjs).
//
// ggml's wasm kernels widen both sides to 16 bits and multiply with i32x4.dot_i16x8_s, 8 of them per
// 64 values, and ggml's Q6_K kernel unpacks its 6-bit values one byte at a time. Here one
// i16x8.relaxed_dot_i8x16_i7x16_s multiplies 16 bytes (pmaddubsw on x86, sdot on Arm): exact
// when its second operand lies in [0, 127], which Q4_K's 4-bit and Q6_K's unsigned 6-bit values do.
// Their 16-bit pair sums are then scaled with one i32x4.dot_i16x8_s per group, the shape of
// llama.cpp's AVX2 kernels. The sums are exact integers as in ggml's; Q4_K then takes ggml's float
// steps in ggml's order (its two terms nearly cancel), Q6_K adds its scaled blocks in 4 lanes, as
// ggml's adds them in 8, so only the last bits of a Q6_K row may differ.
//
// Rules of this module: it imports the engine's memory and nothing else, and uses no stack, no
// globals and no data (the engine's memory holds the engine's own stack and data at those
// addresses); wasm/kernels/build.sh checks the compiled module for this.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

#define QK_K 256

// ggml's block layouts (ggml-common.h): 256 values each.
typedef struct {
  uint16_t d;             // fp16 scale of the scales
  uint16_t dmin;          // fp16 scale of the mins
  uint8_t scales[12];     // 8 scales and 8 mins of 6 bits
  uint8_t qs[QK_K / 2];   // 4-bit values, 2 per byte
} block_q4_K;

typedef struct {
  uint8_t ql[QK_K / 2];       // low 4 bits
  uint8_t qh[QK_K / 4];       // high 2 bits
  int8_t scales[QK_K / 16];   // 16 scales of 8 bits
  uint16_t d;                 // fp16 super-block scale
} block_q6_K;

typedef struct {
  float d;
  int8_t qs[QK_K];
  int16_t bsums[QK_K / 16];   // sums of each 16 values
} block_q8_K;

_Static_assert(sizeof(block_q4_K) == 144, "block_q4_K");
_Static_assert(sizeof(block_q6_K) == 210, "block_q6_K");
_Static_assert(sizeof(block_q8_K) == 292, "block_q8_K");

static inline float from_bits(uint32_t bits) { return __builtin_bit_cast(float, bits); }

// IEEE half to float, exact for every finite half (ggml's wasm build reads the same values from a
// table of all 65,536).
static inline float half_to_float(uint16_t h) {
  const uint32_t magnitude = h & 0x7fffu;
  float value;
  if (magnitude >= 0x7c00u) {
    value = from_bits(0x7f800000u | (magnitude & 0x3ffu) << 13);
  } else if (magnitude >= 0x0400u) {
    value = from_bits((magnitude << 13) + (112u << 23));
  } else {
    value = (float) magnitude * 0x1p-24f;
  }
  return from_bits(__builtin_bit_cast(uint32_t, value) | (uint32_t) (h & 0x8000u) << 16);
}

static inline int32_t sum_i32x4(v128_t v) {
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(v, 0);
}

static inline float sum_f32x4(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// 16-bit pair sums of 16 signed activations times 16 values in [0, 127].
static inline v128_t pair_dot(const int8_t *activations, v128_t values) {
  return wasm_i16x8_relaxed_dot_i8x16_i7x16(wasm_v128_load(activations), values);
}

// Q4_K's 12 packed bytes as 8 scales (bytes 0-7) and 8 mins (bytes 8-15) of 6 bits: for j < 4 the
// low 6 bits of bytes j and j + 4; for j >= 4 a nibble of byte j + 4 with the top 2 bits of bytes
// j - 4 and j above it. Reads 16 bytes (the 4 after the scales are the block's first values).
static inline v128_t q4_K_scales_and_mins(const uint8_t *packed) {
  const v128_t bytes = wasm_v128_load(packed);
  const v128_t a = wasm_i8x16_shuffle(bytes, bytes, 0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11);
  const v128_t b = wasm_i8x16_shuffle(bytes, bytes, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7);
  const v128_t low = wasm_v128_and(a, wasm_i8x16_make(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 0, 0, 0, 0));
  const v128_t high_nibble = wasm_v128_and(wasm_u8x16_shr(a, 4), wasm_i8x16_make(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 15, 15, 15));
  const v128_t top_bits = wasm_v128_and(wasm_u8x16_shr(b, 2), wasm_i8x16_make(0, 0, 0, 0, 48, 48, 48, 48, 0, 0, 0, 0, 48, 48, 48, 48));
  return wasm_v128_or(wasm_v128_or(low, high_nibble), top_bits);
}

// Lane `j` of 16-bit lanes, in all eight.
#define BROADCAST16(v, j) wasm_i16x8_shuffle(v, v, j, j, j, j, j, j, j, j)

// Each min (16-bit lanes 0-7 of `mins`) meets the sum of its 32 activations: two of Q8_K's 16-value
// sums, each min paired with both in one i32x4.dot_i16x8_s. 4 lanes, added up by the caller.
static inline v128_t q4_K_mins_sums(const block_q8_K *y, v128_t mins) {
  return wasm_i32x4_add(
      wasm_i32x4_dot_i16x8(wasm_v128_load(y->bsums), wasm_i16x8_shuffle(mins, mins, 0, 0, 1, 1, 2, 2, 3, 3)),
      wasm_i32x4_dot_i16x8(wasm_v128_load(y->bsums + 8), wasm_i16x8_shuffle(mins, mins, 4, 4, 5, 5, 6, 6, 7, 7)));
}

// The row's sum after one more block, from the block's value sums and min sums (4 lanes each).
static inline float q4_K_add_block(float sum, const block_q4_K *x, const block_q8_K *y, v128_t dots,
                                   v128_t mins_sums) {
  // Both sums at once: lanes [dots, dots, mins, mins] after two pairwise additions.
  v128_t both = wasm_i32x4_add(wasm_i32x4_shuffle(dots, mins_sums, 0, 1, 4, 5),
                               wasm_i32x4_shuffle(dots, mins_sums, 2, 3, 6, 7));
  both = wasm_i32x4_add(both, wasm_i32x4_shuffle(both, both, 1, 0, 3, 2));
  // The float steps of ggml's kernel, in its order: the mins' term nearly cancels the values'
  // term, so any other order would round the difference differently.
  sum -= y->d * half_to_float(x->dmin) * wasm_i32x4_extract_lane(both, 2);
  sum += y->d * half_to_float(x->d) * wasm_i32x4_extract_lane(both, 0);
  return sum;
}

// The block's sums as 4 lanes each (the caller adds the lanes up once for the whole row): its
// values against the activations, scaled, and its mins against the activations' sums.
static inline v128_t q4_K_block(const block_q4_K *x, const block_q8_K *y, v128_t *mins_sums) {
  const v128_t packed = q4_K_scales_and_mins(x->scales);
  const v128_t scales = wasm_u16x8_extend_low_u8x16(packed), mins = wasm_u16x8_extend_high_u8x16(packed);
  *mins_sums = q4_K_mins_sums(y, mins);
  const v128_t mask = wasm_i8x16_splat(0x0f);
  const uint8_t *q4 = x->qs;
  const int8_t *q8 = y->qs;
  v128_t acc = wasm_i32x4_splat(0);
#define Q4_K_GROUPS(j)                                                                             \
  do {                                                                                             \
    const v128_t v0 = wasm_v128_load(q4 + 32 * (j)), v1 = wasm_v128_load(q4 + 32 * (j) + 16);      \
    const v128_t low = wasm_i16x8_add(pair_dot(q8 + 64 * (j), wasm_v128_and(v0, mask)),            \
                                      pair_dot(q8 + 64 * (j) + 16, wasm_v128_and(v1, mask)));      \
    const v128_t high = wasm_i16x8_add(pair_dot(q8 + 64 * (j) + 32, wasm_u8x16_shr(v0, 4)),        \
                                       pair_dot(q8 + 64 * (j) + 48, wasm_u8x16_shr(v1, 4)));       \
    acc = wasm_i32x4_add(acc, wasm_i32x4_add(wasm_i32x4_dot_i16x8(low, BROADCAST16(scales, 2 * (j))), \
                                             wasm_i32x4_dot_i16x8(high, BROADCAST16(scales, 2 * (j) + 1)))); \
  } while (0)
  Q4_K_GROUPS(0);
  Q4_K_GROUPS(1);
  Q4_K_GROUPS(2);
  Q4_K_GROUPS(3);
#undef Q4_K_GROUPS
  return acc;
}

/** ggml_vec_dot_q4_K_q8_K's contract: *s = the dot product of n values (n a multiple of 256). */
__attribute__((export_name("lmtab_vec_dot_q4_K_q8_K"))) void lmtab_vec_dot_q4_K_q8_K(
    int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx, const void *restrict vy,
    size_t by, int nrc) {
  (void) bs, (void) bx, (void) by, (void) nrc;
  const block_q4_K *x = vx;
  const block_q8_K *y = vy;
  float sum = 0;
  for (int i = 0; i < n / QK_K; ++i) {
    v128_t mins_sums;
    const v128_t dots = q4_K_block(&x[i], &y[i], &mins_sums);
    sum = q4_K_add_block(sum, &x[i], &y[i], dots, mins_sums);
  }
  *s = sum;
}

// The block's sums as 4 lanes (the caller adds the lanes up once for the whole row).
static inline v128_t q6_K_block(const block_q6_K *x, const block_q8_K *y) {
  const v128_t low4 = wasm_i8x16_splat(0x0f), top2 = wasm_i8x16_splat(0x30);
  const v128_t scales = wasm_v128_load(x->scales);
  const v128_t scales_low = wasm_i16x8_extend_low_i8x16(scales), scales_high = wasm_i16x8_extend_high_i8x16(scales);
  v128_t acc = wasm_i32x4_splat(0);
  // Each 128 values: ql[0..63] hold values 0-31 (low nibbles) and 64-95 (high), ql[32..63] 32-63 and
  // 96-127; qh[0..31] holds the top 2 bits of values l, l + 32, l + 64 and l + 96 in bits 0-1, 2-3,
  // 4-5 and 6-7. Each 16 values share a scale: groups 8 * half + (value index / 16).
#define Q6_K_SLICE(half, off, sc)                                                                   \
  do {                                                                                             \
    const uint8_t *ql = x->ql + 64 * (half), *qh = x->qh + 32 * (half);                            \
    const int8_t *q8 = y->qs + 128 * (half) + (off);                                               \
    const v128_t a = wasm_v128_load(ql + (off)), b = wasm_v128_load(ql + 32 + (off));              \
    const v128_t h = wasm_v128_load(qh + (off));                                                   \
    const v128_t v0 = wasm_v128_or(wasm_v128_and(a, low4), wasm_v128_and(wasm_i8x16_shl(h, 4), top2)); \
    const v128_t v1 = wasm_v128_or(wasm_v128_and(b, low4), wasm_v128_and(wasm_i8x16_shl(h, 2), top2)); \
    const v128_t v2 = wasm_v128_or(wasm_u8x16_shr(a, 4), wasm_v128_and(h, top2));                   \
    const v128_t v3 = wasm_v128_or(wasm_u8x16_shr(b, 4), wasm_v128_and(wasm_u8x16_shr(h, 2), top2)); \
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(pair_dot(q8, v0), BROADCAST16(sc, (off) / 16)));         \
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(pair_dot(q8 + 32, v1), BROADCAST16(sc, (off) / 16 + 2)));  \
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(pair_dot(q8 + 64, v2), BROADCAST16(sc, (off) / 16 + 4)));  \
    acc = wasm_i32x4_add(acc, wasm_i32x4_dot_i16x8(pair_dot(q8 + 96, v3), BROADCAST16(sc, (off) / 16 + 6)));  \
  } while (0)
  Q6_K_SLICE(0, 0, scales_low);
  Q6_K_SLICE(0, 16, scales_low);
  Q6_K_SLICE(1, 0, scales_high);
  Q6_K_SLICE(1, 16, scales_high);
#undef Q6_K_SLICE
  // The values were taken without Q6_K's offset of 32: take 32 times each scaled 16-value sum.
  const v128_t offsets = wasm_i32x4_add(wasm_i32x4_dot_i16x8(scales_low, wasm_v128_load(y->bsums)),
                                        wasm_i32x4_dot_i16x8(scales_high, wasm_v128_load(y->bsums + 8)));
  return wasm_i32x4_sub(acc, wasm_i32x4_shl(offsets, 5));
}

/** ggml_vec_dot_q6_K_q8_K's contract: *s = the dot product of n values (n a multiple of 256). */
__attribute__((export_name("lmtab_vec_dot_q6_K_q8_K"))) void lmtab_vec_dot_q6_K_q8_K(
    int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx, const void *restrict vy,
    size_t by, int nrc) {
  (void) bs, (void) bx, (void) by, (void) nrc;
  const block_q6_K *x = vx;
  const block_q8_K *y = vy;
  v128_t sum = wasm_f32x4_splat(0);
  for (int i = 0; i < n / QK_K; ++i) {
    const v128_t scale = wasm_f32x4_splat(half_to_float(x[i].d) * y[i].d);
    sum = wasm_f32x4_add(sum, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(q6_K_block(&x[i], &y[i])), scale));
  }
  *s = sum_f32x4(sum);
}
