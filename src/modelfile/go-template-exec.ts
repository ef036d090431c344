import type {
  ArgNode,
  BranchFields,
  CommandNode,
  IdentifierNode,
  PipeNode,
  RangeNode,
  TemplateNode,
} from './go-template-ast.js';
import type { FunctionContext, TemplateFunction } from './go-template-functions.js';
import type { TemplateSource } from './go-template-source.js';
import { formatValue, goKind, goTypeName, isMap, isTrue } from './go-value.js';

/** Settings of one execution. */
export interface ExecuteOptions extends FunctionContext {
  functions: ReadonlyMap<string, TemplateFunction>;
  /** Nodes and loop iterations allowed before execution stops (guards hostile templates). */
  maxSteps: number;
}

/** Marks an absent pipeline value, as Go's missingVal does (distinct from nil). */
const missing = Symbol('missing');
type Value = unknown;
type Signal = 'break' | 'continue' | undefined;

/** Executes a parsed template on data, following Go's text/template semantics. */
export function executeTemplate(
  root: readonly TemplateNode[],
  data: unknown,
  source: TemplateSource,
  options: ExecuteOptions,
): string {
  const out: string[] = [];
  const vars: { name: string; value: Value }[] = [{ name: '$', value: data }];
  let steps = 0;

  const fail = (pos: number, message: string): never => {
    throw source.error(pos, message);
  };
  const step = (pos: number): void => {
    if (++steps > options.maxSteps) {
      fail(pos, `template ran more than ${options.maxSteps} steps; is a {{range}} too large?`);
    }
  };

  walkList(data, root);
  return out.join('');

  function walkList(dot: Value, list: readonly TemplateNode[]): Signal {
    for (const node of list) {
      const signal = walk(dot, node);
      if (signal !== undefined) return signal;
    }
    return undefined;
  }

  function walk(dot: Value, node: TemplateNode): Signal {
    step(node.pos);
    switch (node.type) {
      case 'text':
        out.push(node.text);
        return undefined;
      case 'action': {
        const value = evalPipeline(dot, node.pipe);
        // Go prints a missing or nil value as "<no value>", and nothing for a declaration.
        if (node.pipe.decl.length === 0)
          out.push(value == null ? '<no value>' : formatValue(value));
        return undefined;
      }
      case 'if':
      case 'with':
        return walkIfOrWith(dot, node, node.type === 'with');
      case 'range':
        return walkRange(dot, node);
      default:
        return node.type;
    }
  }

  function walkIfOrWith(dot: Value, node: BranchFields, isWith: boolean): Signal {
    // Variables declared in the condition or the branches end with the structure.
    const mark = vars.length;
    const value = evalPipeline(dot, node.pipe);
    let signal: Signal;
    if (isTrue(value)) signal = walkList(isWith ? value : dot, node.list);
    else if (node.elseList !== undefined) signal = walkList(dot, node.elseList);
    vars.length = mark;
    return signal;
  }

  // Go pushes the range's variables once, then overwrites them on each pass; anything the body
  // declares is dropped after each pass.
  function walkRange(dot: Value, node: RangeNode): Signal {
    const mark = vars.length;
    const value = evalPipeline(dot, node.pipe);
    const bodyMark = vars.length;
    const { decl, isAssign } = node.pipe;
    const iterations = entries(value, node);
    let ran = false;
    for (const [key, element] of iterations) {
      step(node.pos);
      ran = true;
      // With one variable it takes the element; with two, the index (or key) and the element.
      if (decl.length === 1) setVariable(decl[0], element, isAssign, 1);
      if (decl.length === 2) {
        setVariable(decl[0], key, isAssign, 2);
        setVariable(decl[1], element, isAssign, 1);
      }
      const signal = walkList(element, node.list);
      vars.length = bodyMark;
      if (signal === 'break') break;
    }
    let signal: Signal;
    if (!ran && node.elseList !== undefined) signal = walkList(dot, node.elseList);
    vars.length = mark;
    return signal;
  }

  function setVariable(name: string | undefined, value: Value, isAssign: boolean, fromTop: number) {
    const slot = isAssign ? findVariable(name ?? '') : vars[vars.length - fromTop];
    if (slot !== undefined) slot.value = value;
  }

  function entries(value: Value, node: RangeNode): Iterable<[Value, Value]> {
    switch (goKind(value)) {
      case 'nil':
        return [];
      case 'array':
        return (value as Value[]).map((element, i): [Value, Value] => [i, element]);
      case 'map': {
        const map = value as Record<string, Value>;
        return Object.keys(map)
          .sort()
          .map((key): [Value, Value] => [key, map[key]]);
      }
      case 'number': {
        const n = value as number;
        if (!Number.isInteger(n)) break;
        if (node.pipe.decl.length > 1) {
          fail(node.pos, `can't use ${n} to iterate over more than one variable`);
        }
        return Array.from({ length: Math.max(0, Math.min(n, options.maxSteps + 1)) }, (_, i) => [
          i,
          i,
        ]);
      }
    }
    return fail(node.pos, `range can't iterate over ${formatValue(value)}`);
  }

  function evalPipeline(dot: Value, pipe: PipeNode): Value {
    let value: Value = missing;
    for (const cmd of pipe.cmds) value = evalCommand(dot, cmd, value);
    for (const name of pipe.decl) {
      if (!pipe.isAssign) vars.push({ name, value });
      else {
        const slot = findVariable(name);
        if (slot === undefined) fail(pipe.pos, `undefined variable: ${name}`);
        else slot.value = value;
      }
    }
    return value;
  }

  // `final` is the previous pipeline stage's result, passed as the last argument of a call.
  function evalCommand(dot: Value, cmd: CommandNode, final: Value): Value {
    const [first, ...rest] = cmd.args;
    if (first === undefined) return fail(cmd.pos, 'empty command');
    if (first.type === 'identifier') return callFunction(dot, first, rest, final);
    if (rest.length > 0 || final !== missing) {
      fail(first.pos, `can't give argument to non-function ${describeArg(first)}`);
    }
    if (first.type === 'nil') fail(first.pos, 'nil is not a command');
    return evalArg(dot, first);
  }

  function evalArg(dot: Value, arg: ArgNode): Value {
    switch (arg.type) {
      case 'dot':
        return dot;
      case 'nil':
        return null;
      case 'bool':
      case 'number':
      case 'string':
        return arg.value;
      case 'field':
        return fields(dot, arg.names, arg.pos);
      case 'variable': {
        const slot = findVariable(arg.name);
        if (slot === undefined) return fail(arg.pos, `undefined variable: ${arg.name}`);
        return fields(slot.value, arg.fields, arg.pos);
      }
      case 'pipe':
        return evalPipeline(dot, arg);
      case 'identifier':
        return callFunction(dot, arg, [], missing);
      case 'chain':
        return fields(evalArg(dot, arg.node), arg.fields, arg.pos);
    }
  }

  // Maps (plain objects) answer any key, a missing one with nil. A field of nil is nil too: Go
  // would say "nil pointer evaluating", but no prompt is worth failing a chat over that.
  function fields(receiver: Value, names: readonly string[], pos: number): Value {
    let value = receiver;
    for (const name of names) {
      if (value == null) return undefined;
      if (!isMap(value)) {
        return fail(pos, `can't evaluate field ${name} in type ${goTypeName(value)}`);
      }
      value = Object.hasOwn(value, name) ? value[name] : undefined;
    }
    return value;
  }

  function callFunction(dot: Value, node: IdentifierNode, args: ArgNode[], final: Value): Value {
    const fn = options.functions.get(node.name);
    if (fn === undefined) return fail(node.pos, `function "${node.name}" not defined`);
    if ((node.name === 'and' || node.name === 'or') && args.length > 0) {
      // Go 1.18+: stop at the first argument that decides the result.
      let value: Value;
      for (const arg of args) {
        value = evalArg(dot, arg);
        if (isTrue(value) === (node.name === 'or')) return value;
      }
      return final === missing ? value : final;
    }
    const values = args.map((arg) => evalArg(dot, arg));
    if (final !== missing) values.push(final);
    try {
      return fn(values, options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return fail(node.pos, `error calling ${node.name}: ${message}`);
    }
  }

  function findVariable(name: string): { name: string; value: Value } | undefined {
    for (let i = vars.length - 1; i >= 0; i--) if (vars[i]?.name === name) return vars[i];
    return undefined;
  }
}

function describeArg(arg: ArgNode): string {
  switch (arg.type) {
    case 'field':
      return `.${arg.names.join('.')}`;
    case 'variable':
      return [arg.name, ...arg.fields].join('.');
    case 'string':
      return JSON.stringify(arg.value);
    case 'number':
      return arg.text;
    case 'bool':
      return String(arg.value);
    case 'dot':
      return '.';
    default:
      return arg.type;
  }
}
