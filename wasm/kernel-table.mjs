// Finds, in lmtab's CPU build (lmtab-cpu.wasm), the function-table slots that hold ggml's Q4_K and
// Q6_K dot products, which lmtab's relaxed-SIMD kernels (wasm/kernels/) replace at load.
//
// ggml calls every dot product through `type_traits_cpu[type].vec_dot`, a function pointer in a
// constant array; in wasm32 a function pointer is a slot of the module's function table. The array
// is found in the wasm's data by its shape (24-byte entries: from_float, vec_dot, vec_dot_type, 4
// bytes of padding, int64 nrows; indexed by ggml_type), exactly once, and the slots it names are
// checked to hold functions of the vec_dot type, (i32 x 8) -> ().

const GGML_TYPE = { Q8_0: 8, Q8_1: 9, Q4_K: 12, Q6_K: 14, Q8_K: 15 };
const ENTRY_BYTES = 24;

/** The slots of ggml's Q4_K and Q6_K dot products in `wasm`'s function table. */
export function findKernelSlots(wasm) {
  const module = parseModule(wasm);
  const matches = [];
  for (const segment of module.data) {
    for (
      let at = 0;
      at + ENTRY_BYTES * (GGML_TYPE.Q6_K - GGML_TYPE.Q8_0 + 1) <= segment.length;
      at++
    ) {
      if (isTypeTraits(segment, at)) matches.push({ segment, at });
    }
  }
  if (matches.length !== 1) {
    throw new Error(
      `expected one ggml type_traits_cpu array in the wasm's data, found ${matches.length}`,
    );
  }
  const [{ segment, at }] = matches;
  const slot = (type) => u32(segment, at + ENTRY_BYTES * (type - GGML_TYPE.Q8_0) + 4);
  const slots = { q4_K: slot(GGML_TYPE.Q4_K), q6_K: slot(GGML_TYPE.Q6_K) };
  for (const [name, index] of Object.entries(slots)) {
    const type = module.functionType(module.tableFunction(index));
    if (type !== '(i32,i32,i32,i32,i32,i32,i32,i32)->()') {
      throw new Error(
        `table slot ${index} (${name}) holds a function of type ${type}, not a vec_dot`,
      );
    }
  }
  return slots;
}

// Entries Q8_0 (8) to Q6_K (14) of the array, which sit in one data segment (emscripten's optimizer
// splits segments at long runs of zeros, such as the entries of the removed types 4 and 5): Q8_0
// against Q8_0, Q8_1 with no dot product of its own, and the K-quants Q2_K to Q6_K against Q8_K, each
// one row at a time, each dot product a different function.
function isTypeTraits(bytes, at) {
  const slots = new Set();
  for (let type = GGML_TYPE.Q8_0; type <= GGML_TYPE.Q6_K; type++) {
    const base = at + ENTRY_BYTES * (type - GGML_TYPE.Q8_0);
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
    tableFunction(slot) {
      if (!elements.has(slot)) throw new Error(`table slot ${slot} is not initialised`);
      return elements.get(slot);
    },
    functionType(index) {
      if (index >= functionTypes.length) throw new Error(`function ${index} does not exist`);
      return types[functionTypes[index]];
    },
    importedFunctions,
  };
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
