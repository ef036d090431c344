// Finds, in lmtab's CPU build (lmtab-cpu.wasm), the function-table slots that hold the ggml
// functions lmtab's kernels (wasm/kernels/) replace at load: the Q8_0, Q4_K and Q6_K dot products,
// and the conversion of Q8_0 rows to floats.
//
// ggml calls them through function pointers in two constant arrays indexed by ggml_type, and in
// wasm32 a function pointer is a slot of the module's function table:
// - `type_traits_cpu[type].vec_dot` (ggml-cpu): 24-byte entries: from_float, vec_dot,
//   vec_dot_type, 4 bytes of padding, int64 nrows;
// - `type_traits[type].to_float` (ggml-base): 40-byte entries: type_name, 4 bytes of padding, int64
//   blck_size, int64 blck_size_interleave, type_size, is_quantized and padding, to_float,
//   from_float_ref.
// Each array is found in the wasm's data by its shape, exactly once, within one data segment (the
// build's segments are passive: the offsets they are copied to are in code, not in the segments),
// and the slots it names are checked to hold functions of the right type.

const GGML_TYPE = { Q8_0: 8, Q8_1: 9, Q4_K: 12, Q6_K: 14, Q8_K: 15 };
const CPU_ENTRY_BYTES = 24;
const BASE_ENTRY_BYTES = 40;
const VEC_DOT = '(i32,i32,i32,i32,i32,i32,i32,i32)->()';
const TO_FLOAT = '(i32,i32,i64)->()';

/**
 * The slots of ggml's Q8_0, Q4_K and Q6_K dot products and its Q8_0 to-float in `wasm`'s table
 * (`slots`), and the addresses in the engine's memory of those dot products' type_traits_cpu entries
 * (`entries`): where lmtab's kernels run, the glue sets their nrows to 4, so that ggml's mul_mat
 * (as wasm/cpp-patches.mjs edits it) hands them tiles of 4 rows by 4 columns and of 2 by 2
 * (batches: prompts, several clients).
 */
export function findKernels(wasm) {
  const module = parseModule(wasm);
  const cpu = findOnce(module.data, 'ggml type_traits_cpu', CPU_ENTRY_BYTES, isCpuTypeTraits);
  const base = findOnce(module.data, 'ggml type_traits', BASE_ENTRY_BYTES, isTypeTraits);
  const entryOffset = (entryBytes, type) => entryBytes * (type - GGML_TYPE.Q8_0);
  const at = (array, entryBytes, type, field) =>
    u32(array.segment, array.at + entryOffset(entryBytes, type) + field);
  const slots = {
    q8_0: at(cpu, CPU_ENTRY_BYTES, GGML_TYPE.Q8_0, 4),
    q4_K: at(cpu, CPU_ENTRY_BYTES, GGML_TYPE.Q4_K, 4),
    q6_K: at(cpu, CPU_ENTRY_BYTES, GGML_TYPE.Q6_K, 4),
    q8_0ToFloat: at(base, BASE_ENTRY_BYTES, GGML_TYPE.Q8_0, 32),
  };
  for (const [name, index] of Object.entries(slots)) {
    const type = module.functionType(module.tableFunction(index));
    const expected = name === 'q8_0ToFloat' ? TO_FLOAT : VEC_DOT;
    if (type !== expected) {
      throw new Error(
        `table slot ${index} (${name}) holds a function of type ${type}, not ${expected}`,
      );
    }
  }
  const cpuAddress = module.segmentAddress(cpu.segment) + cpu.at;
  const f16Table = halfTableAddress(module.functionBody(module.tableFunction(slots.q8_0)));
  const entry = (type) => cpuAddress + entryOffset(CPU_ENTRY_BYTES, type);
  return {
    slots,
    f16Table,
    entries: {
      q8_0: entry(GGML_TYPE.Q8_0),
      q4_K: entry(GGML_TYPE.Q4_K),
      q6_K: entry(GGML_TYPE.Q6_K),
    },
  };
}

/**
 * The address of `ggml_table_f32_f16` in the engine's memory, from ggml's Q8_0 dot product, which
 * reads each block's two scales there: `i32.load16_u 0; i32.const 2; i32.shl; i32.const ADDRESS;
 * i32.add; f32.load 0`, twice, at one address.
 */
function halfTableAddress(body) {
  const head = [0x2f, 0x01, 0x00, 0x41, 0x02, 0x74, 0x41];
  const tail = [0x6a, 0x2a, 0x02, 0x00];
  const addresses = new Set();
  let reads = 0;
  for (let i = body.indexOf(head[0]); i >= 0; i = body.indexOf(head[0], i + 1)) {
    if (!head.every((byte, k) => body[i + k] === byte)) continue;
    const { value, end } = sleb(body, i + head.length);
    if (!tail.every((byte, k) => body[end + k] === byte)) continue;
    addresses.add(value >>> 0);
    reads++;
  }
  if (reads !== 2 || addresses.size !== 1) {
    throw new Error(
      `expected ggml's Q8_0 dot product to read its two scales from one table, found ${reads} reads at ${addresses.size} addresses`,
    );
  }
  return [...addresses][0];
}

/** The signed LEB128 at `at` in `bytes`, and where it ends. */
function sleb(bytes, at) {
  let value = 0;
  let shift = 0;
  let byte;
  do {
    byte = bytes[at++];
    value |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  if (shift < 32 && byte & 0x40) value |= -1 << shift;
  return { value, end: at };
}

/** The one place in the data where entries Q8_0 to Q6_K of an array have `isArray`'s shape. */
function findOnce(data, name, entryBytes, isArray) {
  const matches = [];
  const span = entryBytes * (GGML_TYPE.Q6_K - GGML_TYPE.Q8_0 + 1);
  for (const segment of data) {
    for (let at = 0; at + span <= segment.length; at++) {
      if (isArray(segment, at)) matches.push({ segment, at });
    }
  }
  if (matches.length !== 1) {
    throw new Error(`expected one ${name} array in the wasm's data, found ${matches.length}`);
  }
  return matches[0];
}

// type_traits_cpu: Q8_0 against Q8_0, Q8_1 with no dot product of its own, and the K-quants Q2_K
// to Q6_K against Q8_K, each one row at a time, each dot product a different function.
function isCpuTypeTraits(bytes, at) {
  const slots = new Set();
  for (let type = GGML_TYPE.Q8_0; type <= GGML_TYPE.Q6_K; type++) {
    const base = at + CPU_ENTRY_BYTES * (type - GGML_TYPE.Q8_0);
    const vecDot = u32(bytes, base + 4);
    const vecDotType = u32(bytes, base + 8);
    const nrows = [u32(bytes, base + 16), u32(bytes, base + 20)];
    if (type === GGML_TYPE.Q8_1) {
      if (vecDot !== 0 || vecDotType !== GGML_TYPE.Q8_1) return false;
      continue;
    }
    const against = type === GGML_TYPE.Q8_0 ? GGML_TYPE.Q8_0 : GGML_TYPE.Q8_K;
    if (vecDotType !== against || nrows[0] !== 1 || nrows[1] !== 0 || vecDot === 0) return false;
    slots.add(vecDot);
  }
  return slots.size === GGML_TYPE.Q6_K - GGML_TYPE.Q8_0;
}

// type_traits: each type's block size and bytes per block (Q8_0 32 values in 34 bytes, Q8_1 32 in
// 36, Q2_K to Q6_K 256 in 84, 110, 144, 176 and 210), all quantized, all converted to floats by a
// function of their own but Q8_1.
function isTypeTraits(bytes, at) {
  const shapes = [
    [32, 34],
    [32, 36],
    [256, 84],
    [256, 110],
    [256, 144],
    [256, 176],
    [256, 210],
  ];
  const slots = new Set();
  for (const [i, [blockSize, typeSize]] of shapes.entries()) {
    const base = at + BASE_ENTRY_BYTES * i;
    if (u32(bytes, base) === 0 || u32(bytes, base + 8) !== blockSize || u32(bytes, base + 12) !== 0)
      return false;
    if (u32(bytes, base + 24) !== typeSize || bytes[base + 28] !== 1) return false;
    const toFloat = u32(bytes, base + 32);
    if (GGML_TYPE.Q8_0 + i === GGML_TYPE.Q8_1 ? toFloat !== 0 : toFloat === 0) return false;
    if (toFloat) slots.add(toFloat);
  }
  return slots.size === shapes.length - 1;
}

function u32(bytes, at) {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/** The parts of a wasm binary this needs: types, functions, the table's elements, the data. */
function parseModule(wasm) {
  let at = 8;
  const leb = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = wasm[at++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(byte & 0x80)) return result;
    }
  };
  const constExpr = () => {
    const opcode = wasm[at++];
    if (opcode !== 0x41)
      throw new Error(`unsupported constant expression opcode 0x${opcode.toString(16)}`);
    const value = leb();
    if (wasm[at++] !== 0x0b) throw new Error('unterminated constant expression');
    return value;
  };
  const types = [];
  const functionTypes = [];
  const elements = new Map();
  const data = [];
  let code = new Uint8Array();
  const bodies = [];
  let importedFunctions = 0;
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = leb();
    const end = at + size;
    if (id === 1) {
      for (let count = leb(); count > 0; count--) {
        if (wasm[at++] !== 0x60) throw new Error('expected a function type');
        const params = Array.from({ length: leb() }, () => valueType(wasm[at++]));
        const results = Array.from({ length: leb() }, () => valueType(wasm[at++]));
        types.push(`(${params.join(',')})->(${results.join(',')})`);
      }
    } else if (id === 2) {
      for (let count = leb(); count > 0; count--) {
        for (let name = 0; name < 2; name++) {
          const length = leb(); // module name, then field name
          at += length;
        }
        const kind = wasm[at++];
        if (kind === 0) {
          functionTypes.push(leb());
          importedFunctions++;
        } else if (kind === 1) {
          at++;
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 2) {
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 3) {
          at += 2;
        } else {
          throw new Error(`unknown import kind ${kind}`);
        }
      }
    } else if (id === 3) {
      for (let count = leb(); count > 0; count--) functionTypes.push(leb());
    } else if (id === 9) {
      for (let count = leb(); count > 0; count--) {
        const flags = leb();
        if (flags !== 0) throw new Error(`unsupported element segment flags ${flags}`);
        const offset = constExpr();
        const length = leb();
        for (let i = 0; i < length; i++) elements.set(offset + i, leb());
      }
    } else if (id === 10) {
      code = wasm.subarray(at, end);
      for (let count = leb(); count > 0; count--) {
        const size = leb();
        bodies.push(wasm.subarray(at, at + size));
        at += size;
      }
    } else if (id === 11) {
      for (let count = leb(); count > 0; count--) {
        const flags = leb();
        if (flags === 0) constExpr();
        else if (flags === 2) {
          leb();
          constExpr();
        }
        const length = leb();
        data.push(wasm.subarray(at, at + length));
        at += length;
      }
    }
    at = end;
  }
  return {
    data,
    // Where a passive segment is copied at start: emscripten's __wasm_init_memory copies each with
    // `i32.const DEST, i32.const 0, i32.const LENGTH, memory.init SEGMENT 0`, found in the code
    // exactly once with the segment's number and length.
    segmentAddress(segment) {
      const index = data.indexOf(segment);
      const tail = [0x41, 0x00, 0x41, ...uleb(segment.length), 0xfc, 0x08, ...uleb(index), 0x00];
      const found = [];
      for (let i = code.indexOf(tail[0]); i >= 0; i = code.indexOf(tail[0], i + 1)) {
        if (tail.every((byte, k) => code[i + k] === byte)) found.push(i);
      }
      const dests = found.map((i) => constBefore(code, i)).filter((dest) => dest !== undefined);
      if (dests.length !== 1) {
        throw new Error(`expected one memory.init of data segment ${index}, found ${dests.length}`);
      }
      return dests[0];
    },
    tableFunction(slot) {
      if (!elements.has(slot)) throw new Error(`table slot ${slot} is not initialised`);
      return elements.get(slot);
    },
    functionBody(index) {
      const body = bodies[index - importedFunctions];
      if (!body) throw new Error(`function ${index} has no body in this module`);
      return body;
    },
    functionType(index) {
      if (index >= functionTypes.length) throw new Error(`function ${index} does not exist`);
      return types[functionTypes[index]];
    },
    importedFunctions,
  };
}

function uleb(value) {
  const bytes = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    bytes.push(byte);
  } while (value);
  return bytes;
}

/** The value of the `i32.const` (0x41, signed LEB128) that ends right before `end`, if one does. */
function constBefore(code, end) {
  for (let start = end - 2; start >= Math.max(0, end - 6); start--) {
    if (code[start] !== 0x41) continue;
    const { value, end: after } = sleb(code, start + 1);
    if (after === end) return value >>> 0;
  }
  return undefined;
}

function valueType(byte) {
  const names = {
    0x7f: 'i32',
    0x7e: 'i64',
    0x7d: 'f32',
    0x7c: 'f64',
    0x7b: 'v128',
    0x70: 'funcref',
    0x6f: 'externref',
  };
  return names[byte] ?? `0x${byte.toString(16)}`;
}
