import type {
  ArgNode,
  CommandNode,
  NumberNode,
  PipeNode,
  TemplateNode,
} from './go-template-ast.js';
import { lexTemplate, unquoteGo } from './go-template-lexer.js';
import type { Token, TokenType } from './go-template-lexer.js';
import type { TemplateSource } from './go-template-source.js';

type Control = 'if' | 'with' | 'range';
/** `{{end}}` and `{{else}}` close lists; they never reach the tree. */
type Marker = { type: 'end'; pos: number } | { type: 'else'; pos: number };

/** Functions a template may call; others fail at parse time, as in Go. */
export interface KnownFunctions {
  has(name: string): boolean;
}

const unsupportedFunctions = new Set(['call', 'html', 'js', 'urlquery']);
const nonExecutable = new Set(['bool', 'dot', 'nil', 'number', 'string']);

/** Parses Go text/template source into a tree (lmtab's subset), failing with line:col. */
export function parseTemplateTree(
  source: TemplateSource,
  functions: KnownFunctions,
): TemplateNode[] {
  const tokens = lexTemplate(source);
  let index = 0;
  // {{break}} and {{continue}} are parse errors outside a range, as in Go 1.18+.
  let rangeDepth = 0;
  // Variables in scope: Go checks uses at parse time, and a declaration lasts to the {{end}} of
  // the control structure around it.
  const vars = ['$'];

  const fail = (pos: number, message: string): never => {
    throw source.error(pos, message);
  };
  const peek = (): Token => tokens[index] ?? eofToken();
  const next = (): Token => tokens[index++] ?? eofToken();
  const eofToken = (): Token => ({ type: 'eof', pos: source.text.length, value: '' });
  const nextNonSpace = (): Token => {
    let token = next();
    while (token.type === 'space') token = next();
    return token;
  };
  const peekNonSpace = (): Token => {
    const at = index;
    const token = nextNonSpace();
    index = at;
    return token;
  };
  const unexpected = (token: Token, context: string, expected: string): never =>
    fail(token.pos, `unexpected ${describe(token)} in ${context}; expected ${expected}`);
  const expectRightDelim = (context: string): Token => {
    const token = nextNonSpace();
    if (token.type !== 'rightDelim') unexpected(token, context, '"}}"');
    return token;
  };

  const root: TemplateNode[] = [];
  while (peek().type !== 'eof') {
    const node = textOrAction();
    if (node.type === 'end' || node.type === 'else') {
      fail(node.pos, `unexpected {{${node.type}}}; no {{if}}, {{with}} or {{range}} is open`);
    } else {
      root.push(node);
    }
  }
  return root;

  function textOrAction(): TemplateNode | Marker {
    const token = next();
    if (token.type === 'text') return { type: 'text', pos: token.pos, text: token.value };
    if (token.type === 'leftDelim') return action();
    return unexpected(token, 'input', 'text or "{{"');
  }

  function itemList(context: Control, open: number): [TemplateNode[], Marker] {
    const list: TemplateNode[] = [];
    for (;;) {
      if (peek().type === 'eof') {
        const at = source.position(open);
        fail(
          source.text.length,
          `unexpected end of template; expected {{end}} to close the {{${context}}} at ${at}`,
        );
      }
      const node = textOrAction();
      if (node.type === 'end' || node.type === 'else') return [list, node];
      list.push(node);
    }
  }

  function action(): TemplateNode | Marker {
    const token = nextNonSpace();
    if (token.type === 'keyword') {
      const word = token.value;
      if (word === 'if' || word === 'with' || word === 'range') return control(word, token.pos);
      switch (word) {
        case 'end':
          expectRightDelim('{{end}}');
          return { type: 'end', pos: token.pos };
        case 'else': {
          const following = peekNonSpace();
          // `{{else if ...}}` leaves the `if` pending for the enclosing control to parse.
          if (following.type !== 'keyword' || !['if', 'with'].includes(following.value)) {
            expectRightDelim('{{else}}');
          }
          return { type: 'else', pos: token.pos };
        }
        case 'break':
        case 'continue':
          expectRightDelim(`{{${word}}}`);
          if (rangeDepth === 0) fail(token.pos, `{{${word}}} outside {{range}}`);
          return word === 'break'
            ? { type: 'break', pos: token.pos }
            : { type: 'continue', pos: token.pos };
        case 'define':
        case 'template':
        case 'block':
          return fail(
            token.pos,
            `{{${word}}} is not supported: lmtab renders one template without named sub-templates`,
          );
      }
    }
    index--;
    return { type: 'action', pos: token.pos, pipe: pipeline('command', 'rightDelim') };
  }

  function control(context: Control, pos: number): TemplateNode {
    const mark = vars.length;
    const pipe = pipeline(context, 'rightDelim');
    if (context === 'range') rangeDepth++;
    const [list, end] = itemList(context, pos);
    if (context === 'range') rangeDepth--;
    let elseList: TemplateNode[] | undefined;
    // {{else if}} nests an if in the else list; its {{end}} closes the whole chain, as in Go.
    if (end.type === 'else') {
      const following = peekNonSpace();
      if (
        following.type === 'keyword' &&
        (following.value === 'if' || following.value === 'with')
      ) {
        if (following.value !== context) {
          fail(
            following.pos,
            `{{else ${following.value}}} is only allowed in {{${following.value}}}`,
          );
        }
        nextNonSpace();
        elseList = [control(context, following.pos)];
      } else {
        const [list2, end2] = itemList(context, pos);
        if (end2.type !== 'end') fail(end2.pos, `expected {{end}}; found a second {{else}}`);
        elseList = list2;
      }
    }
    vars.length = mark;
    const node = { pos, pipe, list, ...(elseList === undefined ? {} : { elseList }) };
    return { type: context, ...node };
  }

  // `$x := cmd | cmd`, `$x = cmd`, or in a range `$i, $e := cmd`. A variable followed by
  // anything else is an operand, so the tokens are read again as commands.
  function pipeline(context: string, end: TokenType): PipeNode {
    const pos = peekNonSpace().pos;
    const pipe: PipeNode = { type: 'pipe', pos, decl: [], isAssign: false, cmds: [] };
    for (;;) {
      const at = index;
      const variable = nextNonSpace();
      if (variable.type !== 'variable') {
        index = at;
        break;
      }
      const operator = nextNonSpace();
      if (operator.type === 'assign' || operator.type === 'declare') {
        pipe.isAssign = operator.type === 'assign';
        if (pipe.isAssign && !vars.includes(variable.value)) {
          fail(variable.pos, `undefined variable "${variable.value}"; declare it first with :=`);
        }
        pipe.decl.push(variable.value);
        vars.push(variable.value);
        break;
      }
      if (operator.type === 'char' && operator.value === ',') {
        pipe.decl.push(variable.value);
        vars.push(variable.value);
        if (context !== 'range' || pipe.decl.length > 1) {
          fail(operator.pos, `too many declarations in ${context}`);
        }
        if (peekNonSpace().type !== 'variable') {
          fail(operator.pos, 'range can only initialize variables; expected "$name" after ","');
        }
        continue;
      }
      index = at;
      break;
    }
    for (;;) {
      const token = nextNonSpace();
      if (token.type === end) break;
      if (token.type === 'char' && token.value === '/' && source.text[token.pos + 1] === '*') {
        fail(token.pos, 'a comment must start right after "{{" or "{{- ", as in {{/* note */}}');
      }
      if (!isOperandStart(token)) {
        unexpected(
          token,
          context,
          end === 'rightDelim' ? 'an operand or "}}"' : 'an operand or ")"',
        );
      }
      index--;
      pipe.cmds.push(command());
    }
    // A later stage receives the previous result as its last argument, so it must be a call.
    if (pipe.cmds.length === 0) fail(pos, `missing value for ${context}`);
    pipe.cmds.slice(1).forEach((cmd, i) => {
      const first = cmd.args[0];
      if (first !== undefined && nonExecutable.has(first.type)) {
        fail(cmd.pos, `non executable command in pipeline stage ${i + 2}; expected a function`);
      }
    });
    return pipe;
  }

  function command(): CommandNode {
    const cmd: CommandNode = { pos: peekNonSpace().pos, args: [] };
    for (;;) {
      while (peek().type === 'space') next();
      const node = operand();
      if (node !== undefined) cmd.args.push(node);
      const token = next();
      if (token.type === 'space') continue;
      if (token.type === 'rightDelim' || token.type === 'rightParen') index--;
      else if (token.type !== 'pipe') unexpected(token, 'operand', 'a space, "|" or "}}"');
      break;
    }
    if (cmd.args.length === 0) fail(cmd.pos, 'empty command');
    return cmd;
  }

  // A term directly followed by fields (no space): `.A.B`, `$x.A`, `(pipeline).A`.
  function operand(): ArgNode | undefined {
    const node = term();
    if (node === undefined || peek().type !== 'field') return node;
    const fields: string[] = [];
    while (peek().type === 'field') fields.push(next().value.slice(1));
    switch (node.type) {
      case 'field':
        return { ...node, names: [...node.names, ...fields] };
      case 'variable':
        return { ...node, fields: [...node.fields, ...fields] };
      case 'pipe':
      case 'identifier':
        return { type: 'chain', pos: node.pos, node, fields };
      case 'chain':
        return { ...node, fields: [...node.fields, ...fields] };
      default:
        return fail(node.pos, `unexpected "." after ${node.type} term`);
    }
  }

  function term(): ArgNode | undefined {
    const token = nextNonSpace();
    const pos = token.pos;
    switch (token.type) {
      case 'identifier':
        if (unsupportedFunctions.has(token.value)) {
          fail(pos, `function "${token.value}" is not supported by lmtab's template engine`);
        }
        if (!functions.has(token.value)) fail(pos, `function "${token.value}" not defined`);
        return { type: 'identifier', pos, name: token.value };
      case 'dot':
        return { type: 'dot', pos };
      case 'variable': {
        if (!vars.includes(token.value)) fail(pos, `undefined variable "${token.value}"`);
        return { type: 'variable', pos, name: token.value, fields: [] };
      }
      case 'field':
        return { type: 'field', pos, names: [token.value.slice(1)] };
      case 'bool':
        return { type: 'bool', pos, value: token.value === 'true' };
      case 'number':
        return parseNumber(token);
      case 'char':
        if (token.value.startsWith("'")) return parseChar(token);
        break;
      case 'string':
        return { type: 'string', pos, value: token.value };
      case 'leftParen':
        return pipeline('parenthesized pipeline', 'rightParen');
      case 'keyword':
        if (token.value === 'nil') return { type: 'nil', pos };
        break;
    }
    index--;
    return undefined;
  }

  function parseNumber(token: Token): NumberNode {
    const text = token.value.replaceAll('_', '');
    const sign = text.startsWith('-') ? -1 : 1;
    const digits = text.replace(/^[+-]/, '');
    let value = Number.NaN;
    if (/^0[xX][0-9a-fA-F]+$/.test(digits)) value = parseInt(digits.slice(2), 16);
    else if (/^0[oO]?[0-7]+$/.test(digits)) value = parseInt(digits.replace(/^0[oO]?/, ''), 8);
    else if (/^0[bB][01]+$/.test(digits)) value = parseInt(digits.slice(2), 2);
    else if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(digits)) value = Number(digits);
    if (!Number.isFinite(value)) fail(token.pos, `bad number syntax: "${token.value}"`);
    return { type: 'number', pos: token.pos, value: sign * value, text: token.value };
  }

  function parseChar(token: Token): NumberNode {
    const value = unquoteGo(token.value, (message) => fail(token.pos, message));
    const code = value.codePointAt(0);
    if (code === undefined || [...value].length !== 1) {
      fail(token.pos, `malformed character constant: ${token.value}`);
    }
    return { type: 'number', pos: token.pos, value: code ?? 0, text: token.value };
  }
}

function isOperandStart(token: Token): boolean {
  switch (token.type) {
    case 'char':
      return token.value.startsWith("'");
    case 'bool':
    case 'dot':
    case 'field':
    case 'identifier':
    case 'number':
    case 'string':
    case 'variable':
    case 'leftParen':
      return true;
    case 'keyword':
      return token.value === 'nil';
    default:
      return false;
  }
}

function describe(token: Token): string {
  switch (token.type) {
    case 'eof':
      return 'end of template';
    case 'rightDelim':
      return '"}}"';
    case 'keyword':
      return `keyword "${token.value}"`;
    case 'string':
      return `string ${JSON.stringify(token.value)}`;
    default:
      return JSON.stringify(token.value);
  }
}
