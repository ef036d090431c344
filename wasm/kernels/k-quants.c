// lmtab's K-quant and Q8_0 dot products for its CPU build, compiled by clang-19 with relaxed SIMD
// (wasm/kernels/build.sh) into a module of their own, lmtab-kernels.wasm. The glue puts them in
// place of ggml's own kernels in the engine's function table where the browser has relaxed SIMD
// (wasm/kernel-table.mjs, wasm/glue-patches.mjs).
//
// ggml's wasm kernels widen both sides to 16 bits and multiply with i32x4.dot_i16x8_s, 8 of them per
// 64 values, and ggml's Q6_K kernel unpacks its 6-bit values one byte at a time. Here one
// i16x8.relaxed_dot_i8x16_i7x16_s multiplies 16 bytes (pmaddubsw on x86, sdot on Arm): exact
// when its second operand lies in [0, 127], which Q4_K's 4-bit and Q6_K's unsigned 6-bit values do.
// Their 16-bit pair sums are then scaled with one i32x4.dot_i16x8_s per group, the shape of
// llama.cpp's AVX2 kernels. The sums are exact integers as in ggml's, and each block's are scaled as
// ggml's are; Q4_K then adds them up in ggml's order (its two terms nearly cancel), Q6_K in 4 float
// lanes, as ggml's adds them in 8, so only the last bits of a Q6_K row may differ.
//
// Q8_0's weights are signed, so its tiles move each weight's sign to its activation first and
// multiply by the magnitudes (llama.cpp's AVX2 kernel does the same with _mm256_sign_epi8): for one
// row that costs what ggml's widening does, but in a tile each block's weights and activations
// are prepared once for several products (4 in ggml's 2-by-2 tiles, 8 in the halves of the 4-by-4
// tiles that lmtab's edit of mul_mat hands over). One row keeps ggml's arithmetic to the bit.
//
// Rules of this module: it imports the engine's memory and nothing else, and uses no stack, no
// globals and no data (the engine's memory holds the engine's own stack and data at those
// addresses); wasm/kernels/build.sh checks the compiled module for this.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

// Everything but the exports is inlined into them, so that arrays of vectors stay in registers
// (the module may use no stack) and each loop is unrolled with its constants known.
#define INLINE static inline __attribute__((always_inline))

#define QK_K 256

// The most activation rows (columns) a row of weights meets in one call: ggml's mul_mat, as lmtab's
// build edits it (wasm/cpp-patches.mjs), hands these kernels tiles of 4 rows by 4 columns.
#define MAX_COLUMNS 4

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

INLINE float sum_f32x4(v128_t v) {
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_f32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_f32x4_extract_lane(v, 0);
}

// How V8 (Chromium 156, x86-64) compiles these kernels decides their speed, and three habits of
// its code cost more than the arithmetic:
// - every v128.const is built anew where it appears (3 instructions), and clang puts constants
//   beside their uses, inside the loops. A mask made by `splat_bytes` from a value clang cannot see
//   through is built once per call, before the loop, and stays in a register;
// - i8x16.shr_u and i8x16.shl are a 16-bit shift, a mask built anew and an and: 5 instructions.
//   `shr_bytes` and `shl_bytes` shift 16-bit lanes and clear the bits that crossed from the
//   neighbouring byte with a mask the caller keeps: 2;
// - general byte shuffles are a pshufb with a mask built anew; the shuffles here are ones V8 makes
//   a single instruction (unpacks, 32-bit lane shuffles).
// (Loads take their constant offsets in their own immediate, so no address is added up per load:
// that is clang's `-mllvm -disable-lsr`, in build.sh.)
INLINE int32_t opaque(int32_t v) {
  __asm__("" : "+r"(v));
  return v;
}

INLINE v128_t splat_bytes(uint8_t byte) { return wasm_i8x16_splat(opaque(byte)); }

INLINE v128_t splat_i32(int32_t word) { return wasm_i32x4_splat(opaque(word)); }

// The constants of `halves_to_floats`, built once per call.
typedef struct {
  v128_t magnitude, rebias, largest, two_to_minus_14, zero;
} half_constants;

INLINE half_constants make_half_constants(void) {
  return (half_constants){splat_i32(0x7fff), splat_i32(112 << 23), splat_i32(0x7bff),
                          splat_i32(0x38800000), wasm_i32x4_splat(0)};
}

// Four halves (the low 16 bits of each 32-bit lane) to floats, exact for every half (ggml's wasm
// build reads the same values from a table of all 65,536), branch-free and without arithmetic on
// subnormal floats, which x86 does in microcode: Q6_K's scales are mostly subnormal halves, and a
// multiply by 2^112 of their bits in a float's place made decode a quarter slower.
// - A half's bits moved into a float's place, the exponent rebased from 15 to 127, give every
//   normal half.
// - A subnormal half (exponent 0, mantissa m) comes out as f = 2^-15 * (1 + m / 1024), and
//   f + (f - 2^-14) = m * 2^-24 is its value, each step exact on normal floats. For normal halves
//   f - 2^-14 >= 0, and nothing is added.
// - Infinities and NaNs are rebased twice (exponent 255).
INLINE v128_t halves_to_floats(v128_t halves, half_constants k) {
  const v128_t magnitude = wasm_v128_and(halves, k.magnitude);
  v128_t bits = wasm_i32x4_add(wasm_i32x4_shl(magnitude, 13), k.rebias);
  bits = wasm_i32x4_add(bits, wasm_v128_and(wasm_i32x4_gt(magnitude, k.largest), k.rebias));
  const v128_t below = wasm_f32x4_pmin(wasm_f32x4_sub(bits, k.two_to_minus_14), k.zero);
  const v128_t sign = wasm_i32x4_shl(wasm_v128_xor(halves, magnitude), 16);
  return wasm_v128_or(wasm_f32x4_add(bits, below), sign);
}

// A block's half scale as a float in all four lanes.
INLINE v128_t block_scale(const uint16_t *half, half_constants k) {
  return halves_to_floats(wasm_u32x4_extend_low_u16x8(wasm_v128_load16_splat(half)), k);
}

#define shr_bytes(v, bits, mask) wasm_v128_and(wasm_u16x8_shr(v, bits), mask)
#define shl_bytes(v, bits, mask) wasm_v128_and(wasm_i16x8_shl(v, bits), mask)

// 16-bit pair sums of 16 signed activations times 16 values in [0, 127].
INLINE v128_t pair_dot(const int8_t *activations, v128_t values) {
  return wasm_i16x8_relaxed_dot_i8x16_i7x16(wasm_v128_load(activations), values);
}

// Two groups' pair sums, `a` for the scale in the low half of each 32-bit lane of `scales` and `b`
// for the one in the high half, scaled and added in one i32x4.dot_i16x8_s: interleaved, lanes 0-3
// and 4-7 added (each sum stays within 16 bits, checked per format below), then one multiply by
// the scale pair. 4 sums of the two groups' scaled products, added up by the caller.
INLINE v128_t scale_pair(v128_t a, v128_t b, v128_t scales) {
  const v128_t ab = wasm_i16x8_add(wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11),
                                   wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15));
  return wasm_i32x4_dot_i16x8(ab, scales);
}

// 32-bit lane `j` of `v` in all four (j a constant once the loops are unrolled).
INLINE v128_t broadcast32(v128_t v, int j) {
  switch (j) {
    case 0: return wasm_i32x4_shuffle(v, v, 0, 0, 0, 0);
    case 1: return wasm_i32x4_shuffle(v, v, 1, 1, 1, 1);
    case 2: return wasm_i32x4_shuffle(v, v, 2, 2, 2, 2);
    default: return wasm_i32x4_shuffle(v, v, 3, 3, 3, 3);
  }
}

// Q4_K's 12 packed bytes as 8 scales (bytes 0-7) and 8 mins (bytes 8-15) of 6 bits: for j < 4 the
// low 6 bits of bytes j and j + 4; for j >= 4 a nibble of byte j + 4 with the top 2 bits of bytes
// j - 4 and j above it. In 32-bit words w0, w1 and w2 (a 16-byte load: the 4 bytes after the 12
// are the block's values, unused) the result's words are [w0 & 0x3f.., (w2 & 0x0f..) | (w0 >> 2) &
// 0x30.., w1 & 0x3f.., (w2 >> 4 & 0x0f..) | (w1 >> 2) & 0x30..]: two 32-bit lane shuffles and
// masks that `q4_K_constants` holds, as llama.cpp's x86 kernels do it in scalar words.
typedef struct {
  v128_t low4, low_masks, high_masks;
} q4_K_constants;

INLINE q4_K_constants make_q4_K_constants(void) {
  const int32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, top2 = 0x30303030;
  return (q4_K_constants){splat_bytes(0x0f),
                          wasm_i32x4_make(opaque(low6), opaque(low4), opaque(low6), opaque(low4)),
                          wasm_i32x4_make(0, opaque(top2), 0, opaque(top2))};
}

INLINE v128_t q4_K_scales_and_mins(const uint8_t *packed, q4_K_constants k) {
  const v128_t w = wasm_v128_load(packed);
  // [w0, w2, w1, w2 >> 4] and [w0, w0, w1, w1].
  const v128_t low = wasm_i32x4_shuffle(w, wasm_u32x4_shr(w, 4), 0, 2, 1, 6);
  const v128_t high = wasm_i32x4_shuffle(w, w, 0, 0, 1, 1);
  return wasm_v128_or(wasm_v128_and(low, k.low_masks),
                      wasm_v128_and(wasm_u32x4_shr(high, 2), k.high_masks));
}

// Each min (16-bit lanes 0-7 of `mins`) meets the sum of its 32 activations: two of Q8_K's 16-value
// sums, each min paired with both in one i32x4.dot_i16x8_s. 4 lanes, added up by the caller.
INLINE v128_t q4_K_mins_sums(const block_q8_K *y, v128_t mins) {
  return wasm_i32x4_add(
      wasm_i32x4_dot_i16x8(wasm_v128_load(y->bsums), wasm_i16x8_shuffle(mins, mins, 0, 0, 1, 1, 2, 2, 3, 3)),
      wasm_i32x4_dot_i16x8(wasm_v128_load(y->bsums + 8), wasm_i16x8_shuffle(mins, mins, 4, 4, 5, 5, 6, 6, 7, 7)));
}

// A Q4_K block's sums, values' (`dots`) and mins' (`mins_sums`), 4 lanes each, as 2 lanes:
// [values, values, mins, mins] of partial sums.
INLINE v128_t q4_K_block_sums(v128_t dots, v128_t mins_sums) {
  return wasm_i32x4_add(wasm_i32x4_shuffle(dots, mins_sums, 0, 1, 4, 5),
                        wasm_i32x4_shuffle(dots, mins_sums, 2, 3, 6, 7));
}

// Blocks a and b's sums scaled as ggml's kernel scales them (y->d times the block's d, or dmin,
// times the sum): [values_a, mins_a, values_b, mins_b]. `block_a` and `block_b` are
// q4_K_block_sums (block_b zero at the end of an odd row, as are lanes 2 and 3 of `halves` and
// `y_ds`); `halves` the blocks' d and dmin, [d_a, dmin_a, d_b, dmin_b] in the low 16 bits of each
// lane; `y_ds` the activations' scales [y_a, y_a, y_b, y_b].
INLINE v128_t q4_K_scaled_sums(v128_t block_a, v128_t block_b, v128_t halves, v128_t y_ds,
                               half_constants k) {
  const v128_t sums = wasm_i32x4_add(wasm_i32x4_shuffle(block_a, block_b, 0, 2, 4, 6),
                                     wasm_i32x4_shuffle(block_a, block_b, 1, 3, 5, 7));
  const v128_t scales = wasm_f32x4_mul(y_ds, halves_to_floats(halves, k));
  return wasm_f32x4_mul(scales, wasm_f32x4_convert_i32x4(sums));
}

// The row's sum after blocks a and b (q4_K_scaled_sums), added in ggml's order: each block's
// mins' term is taken away, then its values' term added. The two nearly cancel, so another order
// rounds their difference otherwise; adding them in vector lanes moved log probabilities by 1e-3.
INLINE float q4_K_add_blocks(float sum, v128_t scaled) {
  sum -= wasm_f32x4_extract_lane(scaled, 1);
  sum += wasm_f32x4_extract_lane(scaled, 0);
  sum -= wasm_f32x4_extract_lane(scaled, 3);
  return sum + wasm_f32x4_extract_lane(scaled, 2);
}

// [y_a, y_a, y_b, y_b] from the two floats at `a` and `b` (a alone, the rest zero, when b is null).
INLINE v128_t scale_pairs(const float *a, const float *b) {
  v128_t v = wasm_v128_load32_zero(a);
  if (b) v = wasm_v128_load32_lane(b, v, 1);
  return wasm_i32x4_shuffle(v, v, 0, 0, 1, 1);
}

// Groups 2j and 2j + 1 of a Q4_K block (32 bytes of values, low nibbles for the first group, high
// for the second, unpacked into `low0`, `low1`, `high0` and `high1`) against their 64 activations
// `q8`, scaled by the pair `scales`. Each group's 16-bit pair sums reach 2 * 2 * 15 * 128 = 7,680
// and two lanes of them 15,360.
INLINE v128_t q4_K_groups(const int8_t *q8, v128_t low0, v128_t low1, v128_t high0, v128_t high1,
                          v128_t scales) {
  const v128_t low = wasm_i16x8_add(pair_dot(q8, low0), pair_dot(q8 + 16, low1));
  const v128_t high = wasm_i16x8_add(pair_dot(q8 + 32, high0), pair_dot(q8 + 48, high1));
  return scale_pair(low, high, scales);
}

// Block `x` against block `i` of `columns` activation rows `y` (1, 2 or 4 for the tiles), its
// values unpacked once for all: each column's sums as 4 lanes in `dots` (the caller adds the lanes
// up once for the whole row), and its mins against the activations' sums in `mins_sums`.
INLINE void q4_K_block(const block_q4_K *x, const block_q8_K *const *y, int i, int columns,
                       q4_K_constants k, v128_t *dots, v128_t *mins_sums) {
  const v128_t low4 = k.low4, packed = q4_K_scales_and_mins(x->scales, k);
  const v128_t scales = wasm_u16x8_extend_low_u8x16(packed), mins = wasm_u16x8_extend_high_u8x16(packed);
  for (int c = 0; c < columns; ++c) {
    mins_sums[c] = q4_K_mins_sums(&y[c][i], mins);
    dots[c] = wasm_i32x4_splat(0);
  }
  for (int j = 0; j < 4; ++j) {
    const v128_t v0 = wasm_v128_load(x->qs + 32 * j), v1 = wasm_v128_load(x->qs + 32 * j + 16);
    const v128_t low0 = wasm_v128_and(v0, low4), low1 = wasm_v128_and(v1, low4);
    const v128_t high0 = shr_bytes(v0, 4, low4), high1 = shr_bytes(v1, 4, low4);
    for (int c = 0; c < columns; ++c) {
      dots[c] = wasm_i32x4_add(dots[c], q4_K_groups(y[c][i].qs + 64 * j, low0, low1, high0, high1,
                                                    broadcast32(scales, j)));
    }
  }
}

// The row `x` of n values against `columns` activation rows: sums[c] = x . y[c]. Blocks go in
// pairs, so that one vector conversion and one scaling serve both blocks' d and dmin.
INLINE void q4_K_row(int n, const block_q4_K *x, const block_q8_K *const *y, int columns,
                     float *sums) {
  const q4_K_constants k = make_q4_K_constants();
  const half_constants h = make_half_constants();
  for (int c = 0; c < columns; ++c) sums[c] = 0;
  const int blocks = n / QK_K;
  int i = 0;
  for (; i + 1 < blocks; i += 2) {
    v128_t dots[2][MAX_COLUMNS], mins_sums[2][MAX_COLUMNS];
    q4_K_block(&x[i], y, i, columns, k, dots[0], mins_sums[0]);
    q4_K_block(&x[i + 1], y, i + 1, columns, k, dots[1], mins_sums[1]);
    const v128_t halves = wasm_u32x4_extend_low_u16x8(
        wasm_v128_load32_lane(&x[i + 1].d, wasm_v128_load32_zero(&x[i].d), 1));
    for (int c = 0; c < columns; ++c) {
      const v128_t a = q4_K_block_sums(dots[0][c], mins_sums[0][c]);
      const v128_t b = q4_K_block_sums(dots[1][c], mins_sums[1][c]);
      const v128_t y_ds = scale_pairs(&y[c][i].d, &y[c][i + 1].d);
      sums[c] = q4_K_add_blocks(sums[c], q4_K_scaled_sums(a, b, halves, y_ds, h));
    }
  }
  if (i < blocks) {
    v128_t dots[MAX_COLUMNS], mins_sums[MAX_COLUMNS];
    q4_K_block(&x[i], y, i, columns, k, dots, mins_sums);
    const v128_t halves = wasm_u32x4_extend_low_u16x8(wasm_v128_load32_zero(&x[i].d));
    for (int c = 0; c < columns; ++c) {
      const v128_t a = q4_K_block_sums(dots[c], mins_sums[c]), y_ds = scale_pairs(&y[c][i].d, NULL);
      sums[c] = q4_K_add_blocks(sums[c], q4_K_scaled_sums(a, wasm_i32x4_splat(0), halves, y_ds, h));
    }
  }
}

// ggml's vec_dot contract. With nrc 1: *s = the dot product of row vx with activations vy (n
// values, a multiple of 256). With nrc 2 or 4 (a tile of ggml's mul_mat: nrc rows vx + r * bx
// against nrc columns vy + c * by, where lmtab's glue has set the type_traits_cpu entry's nrows to
// 4): s[r + c * bs] = row r against column c; each row's values are unpacked once for all columns.
#define VEC_DOT_K(name, block_type, row)                                                           \
  __attribute__((export_name(#name))) void name(int n, float *restrict s, size_t bs,              \
                                                const void *restrict vx, size_t bx,              \
                                                const void *restrict vy, size_t by, int nrc) {   \
    const block_q8_K *y[MAX_COLUMNS];                                                            \
    for (int c = 0; c < MAX_COLUMNS; ++c) {                                                      \
      y[c] = (const block_q8_K *) ((const char *) vy + c * by);                                  \
    }                                                                                            \
    if (nrc == 4) {                                                                              \
      VEC_DOT_K_TILE(block_type, row, 4);                                                        \
    } else if (nrc == 2) {                                                                       \
      VEC_DOT_K_TILE(block_type, row, 2);                                                        \
    } else {                                                                                     \
      float sum;                                                                                 \
      row(n, vx, y, 1, &sum);                                                                    \
      *s = sum;                                                                                  \
    }                                                                                            \
  }

// A tile of `size` rows by `size` columns, row by row (VEC_DOT_K's locals).
#define VEC_DOT_K_TILE(block_type, row, size)                                                      \
  for (int r = 0; r < size; ++r) {                                                               \
    float sums[size];                                                                            \
    row(n, (const block_type *) ((const char *) vx + r * bx), y, size, sums);                    \
    for (int c = 0; c < size; ++c) s[r + c * bs] = sums[c];                                      \
  }

VEC_DOT_K(lmtab_vec_dot_q4_K_q8_K, block_q4_K, q4_K_row)

// Block `x` against block `i` of `columns` activation rows `y`, its values unpacked once for all:
// each column's sums as 4 lanes in `acc` (the caller adds the lanes up once for the whole row).
// `low4` and `top2` are splat_bytes(0x0f) and splat_bytes(0x30).
INLINE void q6_K_block(const block_q6_K *x, const block_q8_K *const *y, int i, int columns,
                       v128_t low4, v128_t top2, v128_t *acc) {
  const v128_t scales = wasm_v128_load(x->scales);
  const v128_t scales_low = wasm_i16x8_extend_low_i8x16(scales), scales_high = wasm_i16x8_extend_high_i8x16(scales);
  for (int c = 0; c < columns; ++c) acc[c] = wasm_i32x4_splat(0);
  // Each 128 values (a half): ql[0..31] hold values 0-31 in their low nibbles and 64-95 in their
  // high ones, ql[32..63] values 32-63 and 96-127; qh[0..31] holds the top 2 bits of values l,
  // l + 32, l + 64 and l + 96 in bits 0-1, 2-3, 4-5 and 6-7. Each 16 values share a scale, so the
  // 16-byte slices at 0 and 16 give groups 2k and 2k + 1, the scale pair in 32-bit lane k of the
  // half's scales. A group's 16-bit pair sums reach 2 * 63 * 128 = 16,128 and two lanes of them
  // 32,256, within 16 bits.
  for (int half = 0; half < 2; ++half) {
    const uint8_t *ql = x->ql + 64 * half, *qh = x->qh + 32 * half;
    const v128_t sc = half ? scales_high : scales_low;
    const v128_t a0 = wasm_v128_load(ql), b0 = wasm_v128_load(ql + 32), h0 = wasm_v128_load(qh);
    const v128_t a1 = wasm_v128_load(ql + 16), b1 = wasm_v128_load(ql + 48), h1 = wasm_v128_load(qh + 16);
    const v128_t values[4][2] = {
        {wasm_v128_or(wasm_v128_and(a0, low4), shl_bytes(h0, 4, top2)),
         wasm_v128_or(wasm_v128_and(a1, low4), shl_bytes(h1, 4, top2))},
        {wasm_v128_or(wasm_v128_and(b0, low4), shl_bytes(h0, 2, top2)),
         wasm_v128_or(wasm_v128_and(b1, low4), shl_bytes(h1, 2, top2))},
        {wasm_v128_or(shr_bytes(a0, 4, low4), wasm_v128_and(h0, top2)),
         wasm_v128_or(shr_bytes(a1, 4, low4), wasm_v128_and(h1, top2))},
        {wasm_v128_or(shr_bytes(b0, 4, low4), shr_bytes(h0, 2, top2)),
         wasm_v128_or(shr_bytes(b1, 4, low4), shr_bytes(h1, 2, top2))},
    };
    for (int c = 0; c < columns; ++c) {
      const int8_t *q8 = y[c][i].qs + 128 * half;
      for (int k = 0; k < 4; ++k) {
        acc[c] = wasm_i32x4_add(acc[c], scale_pair(pair_dot(q8 + 32 * k, values[k][0]),
                                                   pair_dot(q8 + 32 * k + 16, values[k][1]),
                                                   broadcast32(sc, k)));
      }
    }
  }
  // The values were taken without Q6_K's offset of 32: take 32 times each scaled 16-value sum.
  for (int c = 0; c < columns; ++c) {
    const v128_t offsets = wasm_i32x4_add(wasm_i32x4_dot_i16x8(scales_low, wasm_v128_load(y[c][i].bsums)),
                                          wasm_i32x4_dot_i16x8(scales_high, wasm_v128_load(y[c][i].bsums + 8)));
    acc[c] = wasm_i32x4_sub(acc[c], wasm_i32x4_shl(offsets, 5));
  }
}

// The row `x` of n values against `columns` activation rows: sums[c] = x . y[c]. Each block's
// sums are scaled and added in 4 lanes, added up once at the end.
INLINE void q6_K_row(int n, const block_q6_K *x, const block_q8_K *const *y, int columns,
                     float *sums) {
  const v128_t low4 = splat_bytes(0x0f), top2 = splat_bytes(0x30);
  const half_constants h = make_half_constants();
  v128_t total[MAX_COLUMNS];
  for (int c = 0; c < columns; ++c) total[c] = wasm_f32x4_splat(0);
  for (int i = 0; i < n / QK_K; ++i) {
    v128_t acc[MAX_COLUMNS];
    q6_K_block(&x[i], y, i, columns, low4, top2, acc);
    const v128_t d = block_scale(&x[i].d, h);
    for (int c = 0; c < columns; ++c) {
      const v128_t scale = wasm_f32x4_mul(d, wasm_f32x4_splat(y[c][i].d));
      total[c] = wasm_f32x4_add(total[c], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc[c]), scale));
    }
  }
  for (int c = 0; c < columns; ++c) sums[c] = sum_f32x4(total[c]);
}

VEC_DOT_K(lmtab_vec_dot_q6_K_q8_K, block_q6_K, q6_K_row)

// ggml's Q8_0 block: 32 values of 8 bits and their fp16 scale.
typedef struct {
  uint16_t d;
  int8_t qs[32];
} block_q8_0;

_Static_assert(sizeof(block_q8_0) == 34, "block_q8_0");

// A Q8_0 block's 32 weights, ready for the relaxed dot: their magnitudes (the dot's operand in
// [0, 127]) and where they are negative (all ones), in two 16-byte halves. A weight of -128, which
// ggml's quantizer never writes (it rounds to [-127, 127]), is taken as -127: relaxed SIMD leaves a
// magnitude of 128 to the hardware (pmaddubsw reads it as 128, Arm's sdot as -128).
typedef struct {
  v128_t magnitude[2], negative[2];
} q8_0_weights;

// The constants of the Q8_0 dot, built once per call: pair sums (16 bits) to 32-bit lanes, the
// largest magnitude, and zero.
typedef struct {
  v128_t ones, largest, zero;
} q8_0_constants;

INLINE q8_0_constants make_q8_0_constants(void) {
  return (q8_0_constants){wasm_i16x8_splat(opaque(1)), splat_bytes(127), splat_i32(0)};
}

INLINE q8_0_weights q8_0_load(const block_q8_0 *x, q8_0_constants k) {
  q8_0_weights w;
  for (int h = 0; h < 2; ++h) {
    const v128_t v = wasm_v128_load(x->qs + 16 * h);
    w.magnitude[h] = wasm_u8x16_min(wasm_i8x16_abs(v), k.largest);
    w.negative[h] = wasm_i8x16_lt(v, k.zero);
  }
  return w;
}

// An activation block's 32 values and their negations (each within [-127, 127], as ggml's
// quantizer writes them), loaded once for every row they meet.
typedef struct {
  v128_t value[2], negated[2];
} q8_0_activations;

INLINE q8_0_activations q8_0_activations_load(const block_q8_0 *y) {
  q8_0_activations a;
  for (int h = 0; h < 2; ++h) {
    a.value[h] = wasm_v128_load(y->qs + 16 * h);
    a.negated[h] = wasm_i8x16_neg(a.value[h]);
  }
  return a;
}

// Half h of the block's dot product as 4 partial sums: each weight's sign is moved to its
// activation (a lane select, pblendvb on x86), and one relaxed dot multiplies the activations by
// the magnitudes, 16 bytes at a time. The 16-bit pair sums reach 2 * 127 * 127 = 32,258, so each
// half is widened to 32 bits by its own i32x4.dot_i16x8_s with ones. (The sign move written as
// (a ^ m) - m is 2 operations, but clang rewrites it as a negation and three bitwise operations.)
INLINE v128_t q8_0_half_dot(q8_0_weights w, q8_0_activations a, int h, q8_0_constants k) {
  const v128_t signed_activations = wasm_i8x16_relaxed_laneselect(a.negated[h], a.value[h], w.negative[h]);
  return wasm_i32x4_dot_i16x8(wasm_i16x8_relaxed_dot_i8x16_i7x16(signed_activations, w.magnitude[h]), k.ones);
}

INLINE v128_t q8_0_block_dot(q8_0_weights w, q8_0_activations a, q8_0_constants k) {
  return wasm_i32x4_add(q8_0_half_dot(w, a, 0, k), q8_0_half_dot(w, a, 1, k));
}

// Four products' partial sums (4 lanes each) as one lane each: [a, b, c, d], exact integers.
INLINE v128_t add_lanes4(v128_t a, v128_t b, v128_t c, v128_t d) {
  const v128_t ab = wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
  const v128_t cd = wasm_i32x4_add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
  return wasm_i32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}

// ggml's table of every half as a float (ggml_table_f32_f16, filled by ggml_cpu_init before any
// dot product runs), at its address in the engine's memory: wasm/kernel-table.mjs reads it from
// ggml's own Q8_0 dot product, and build.sh passes it in. Q8_0's two scales per 32 values make a
// table read cheaper than the vector conversion above, which pays for Q4_K's and Q6_K's one per 256.
// The build for wllama's memory64 engine (wasm64, no LMTAB_F16_TABLE) converts the half itself, as
// Q4_K's and Q6_K's scales are: that engine's ggml is not lmtab's, and its table is not looked for.
#ifdef LMTAB_F16_TABLE
INLINE float half_value(const uint16_t *half) {
  return ((const float *) LMTAB_F16_TABLE)[*half];
}
#else
INLINE float half_value(const uint16_t *half) {
  return wasm_f32x4_extract_lane(block_scale(half, make_half_constants()), 0);
}
#endif

// Row x against one activation row y, n values, with ggml's wasm kernel's arithmetic: both sides
// widened to 16 bits, 4 lanes of partial sums per block scaled and added in 4 float lanes, the
// lanes added in order at the end. The same floats as ggml's kernel: flash attention's K·Q goes
// through here at every cached position, and a tiny model's answer showed that another partition
// of the lanes (the relaxed dot's) moves log probabilities by 5e-3 through the layers.
INLINE float q8_0_row(int n, const block_q8_0 *x, const block_q8_0 *y) {
  v128_t total = wasm_f32x4_splat(0);
#pragma clang loop unroll_count(4)
  for (const block_q8_0 *end = x + n / 32; x < end; ++x, ++y) {
    v128_t sums[2];
    for (int h = 0; h < 2; ++h) {
      const v128_t xv = wasm_v128_load(x->qs + 16 * h), yv = wasm_v128_load(y->qs + 16 * h);
      sums[h] = wasm_i32x4_add(
          wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(xv), wasm_i16x8_extend_low_i8x16(yv)),
          wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(xv), wasm_i16x8_extend_high_i8x16(yv)));
    }
    const v128_t scale = wasm_f32x4_splat(half_value(&x->d) * half_value(&y->d));
    total = wasm_f32x4_add(total, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_add(sums[0], sums[1])), scale));
  }
  return wasm_f32x4_extract_lane(total, 0) + wasm_f32x4_extract_lane(total, 1) +
         wasm_f32x4_extract_lane(total, 2) + wasm_f32x4_extract_lane(total, 3);
}

// Rows x0 and x1 against activation rows y0 and y1 (ggml's tile), block by block: each block's
// weights and activations are loaded once for the four products, and each product's block sum is
// scaled and added in its own lane, in ggml's generic kernel's order. [x0.y0, x0.y1, x1.y0, x1.y1].
INLINE v128_t q8_0_tile(int n, const block_q8_0 *x0, const block_q8_0 *x1, const block_q8_0 *y0,
                        const block_q8_0 *y1) {
  const q8_0_constants k = make_q8_0_constants();
  v128_t total = wasm_f32x4_splat(0);
  for (const block_q8_0 *end = x0 + n / 32; x0 < end; ++x0, ++x1, ++y0, ++y1) {
    const q8_0_weights w0 = q8_0_load(x0, k), w1 = q8_0_load(x1, k);
    const q8_0_activations a0 = q8_0_activations_load(y0), a1 = q8_0_activations_load(y1);
    const v128_t sums = add_lanes4(q8_0_block_dot(w0, a0, k), q8_0_block_dot(w0, a1, k),
                                   q8_0_block_dot(w1, a0, k), q8_0_block_dot(w1, a1, k));
    const v128_t d = wasm_f32x4_make(half_value(&x0->d), half_value(&x1->d), half_value(&y0->d),
                                     half_value(&y1->d));
    const v128_t scales = wasm_f32x4_mul(wasm_i32x4_shuffle(d, d, 0, 0, 1, 1), wasm_i32x4_shuffle(d, d, 2, 3, 2, 3));
    total = wasm_f32x4_add(total, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(sums), scales));
  }
  return total;
}

// Rows x0 and x1 against 4 activation rows y[c], block by block: each block's weights are prepared
// once for 8 products, its two halves in turn (16 vector registers hold one half's prepared weights
// and the 8 sums, not both halves'), each activation half once per row pair. Each product is the
// 2-by-2 tile's to the bit (the same block sums, scaled and added in the same order):
// totals[r] = [x_r.y0, x_r.y1, x_r.y2, x_r.y3].
INLINE void q8_0_tile_2x4(int n, const block_q8_0 *x0, const block_q8_0 *x1,
                          const block_q8_0 *const *y, v128_t *totals) {
  const q8_0_constants k = make_q8_0_constants();
  v128_t total0 = wasm_f32x4_splat(0), total1 = wasm_f32x4_splat(0);
  for (int b = 0; b < n / 32; ++b) {
    v128_t sums[2][4];
    for (int c = 0; c < 4; ++c) sums[0][c] = sums[1][c] = k.zero;
    // The whole blocks are "loaded" for each half; the other half's loads are dead and dropped.
    for (int h = 0; h < 2; ++h) {
      const q8_0_weights w0 = q8_0_load(&x0[b], k), w1 = q8_0_load(&x1[b], k);
      for (int c = 0; c < 4; ++c) {
        const q8_0_activations a = q8_0_activations_load(&y[c][b]);
        sums[0][c] = wasm_i32x4_add(sums[0][c], q8_0_half_dot(w0, a, h, k));
        sums[1][c] = wasm_i32x4_add(sums[1][c], q8_0_half_dot(w1, a, h, k));
      }
    }
    const v128_t d = wasm_f32x4_make(half_value(&y[0][b].d), half_value(&y[1][b].d),
                                     half_value(&y[2][b].d), half_value(&y[3][b].d));
    const v128_t block0 = add_lanes4(sums[0][0], sums[0][1], sums[0][2], sums[0][3]);
    const v128_t block1 = add_lanes4(sums[1][0], sums[1][1], sums[1][2], sums[1][3]);
    total0 = wasm_f32x4_add(total0, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(block0),
                                                   wasm_f32x4_mul(wasm_f32x4_splat(half_value(&x0[b].d)), d)));
    total1 = wasm_f32x4_add(total1, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(block1),
                                                   wasm_f32x4_mul(wasm_f32x4_splat(half_value(&x1[b].d)), d)));
  }
  totals[0] = total0, totals[1] = total1;
}

// A row's 4 products against 4 columns (`v`'s lanes) in ggml's tile layout: s[c * bs].
INLINE void store_strided(float *s, size_t bs, v128_t v) {
  s[0] = wasm_f32x4_extract_lane(v, 0), s[bs] = wasm_f32x4_extract_lane(v, 1);
  s[2 * bs] = wasm_f32x4_extract_lane(v, 2), s[3 * bs] = wasm_f32x4_extract_lane(v, 3);
}

/**
 * ggml's vec_dot contract for Q8_0 weights against Q8_0 activations (n a multiple of 32), as
 * VEC_DOT_K's: one row by one column, or a tile of nrc rows by nrc columns (2, ggml's, or 4, which
 * lmtab's edit of mul_mat hands where the glue has set nrows to 4), s[r + c * bs] = row r against
 * column c. A tile's products are ggml's generic kernel's to the bit, one row ggml's wasm kernel's.
 */
__attribute__((export_name("lmtab_vec_dot_q8_0_q8_0"))) void lmtab_vec_dot_q8_0_q8_0(
    int n, float *restrict s, size_t bs, const void *restrict vx, size_t bx,
    const void *restrict vy, size_t by, int nrc) {
  if (nrc == 4) {
    const block_q8_0 *y[4];
    for (int c = 0; c < 4; ++c) y[c] = (const block_q8_0 *) ((const char *) vy + c * by);
    for (int r = 0; r < 4; r += 2) {
      v128_t totals[2];
      q8_0_tile_2x4(n, (const block_q8_0 *) ((const char *) vx + r * bx),
                    (const block_q8_0 *) ((const char *) vx + (r + 1) * bx), y, totals);
      store_strided(s + r, bs, totals[0]);
      store_strided(s + r + 1, bs, totals[1]);
    }
  } else if (nrc == 2) {
    const v128_t sums = q8_0_tile(n, vx, (const block_q8_0 *) ((const char *) vx + bx), vy,
                                  (const block_q8_0 *) ((const char *) vy + by));
    s[0] = wasm_f32x4_extract_lane(sums, 0), s[bs] = wasm_f32x4_extract_lane(sums, 1);
    s[1] = wasm_f32x4_extract_lane(sums, 2), s[bs + 1] = wasm_f32x4_extract_lane(sums, 3);
  } else {
    *s = q8_0_row(n, vx, vy);
  }
}

/**
 * dequantize_row_q8_0's contract: y = the k values (k a multiple of 32) as floats. ggml's flash
 * attention calls it for every cached position's values (V) at each token, once per head; ggml's
 * own is a scalar loop. Each product is the one ggml's computes (an int8 times the block's scale,
 * rounded once), so the floats are the same.
 */
__attribute__((export_name("lmtab_dequantize_row_q8_0"))) void lmtab_dequantize_row_q8_0(
    const void *restrict vx, float *restrict y, int64_t k) {
  const block_q8_0 *x = vx;
  const half_constants h = make_half_constants();
  for (int i = 0; i < (int) (k / 32); ++i, y += 32) {
    const v128_t d = block_scale(&x[i].d, h);
    for (int half = 0; half < 2; ++half) {
      const v128_t q = wasm_v128_load(x[i].qs + 16 * half);
      const v128_t low = wasm_i16x8_extend_low_i8x16(q), high = wasm_i16x8_extend_high_i8x16(q);
      float *out = y + 16 * half;
      wasm_v128_store(out, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(low)), d));
      wasm_v128_store(out + 4, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(low)), d));
      wasm_v128_store(out + 8, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(high)), d));
      wasm_v128_store(out + 12, wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(high)), d));
    }
  }
}
