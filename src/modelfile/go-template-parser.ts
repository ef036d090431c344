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
  return new TemplateParser(source, functions).parse();
}

/** A recursive-descent parser over the lexer's tokens, as Go's text/template/parse reads them. */
class TemplateParser {
  private readonly tokens: Token[];
  private index = 0;
  /** {{break}} and {{continue}} are parse errors outside a range, as in Go 1.18+. */
  private rangeDepth = 0;
  /**
   * Variables in scope: Go checks uses at parse time, and a declaration lasts to the {{end}} of the
   * control structure around it.
   */
  private readonly vars = ['$'];

  constructor(
    private readonly source: TemplateSource,
    private readonly functions: KnownFunctions,
  ) {
    this.tokens = lexTemplate(source);
  }

  parse(): TemplateNode[] {
    const root: TemplateNode[] = [];
    while (this.peek().type !== 'eof') {
      const node = this.textOrAction();
      if (node.type === 'end' || node.type === 'else') {
        this.fail(
          node.pos,
          `unexpected {{${node.type}}}; no {{if}}, {{with}} or {{range}} is open`,
        );
      } else {
        root.push(node);
      }
    }
    return root;
  }

  private fail(pos: number, message: string): never {
    throw this.source.error(pos, message);
  }

  private peek(): Token {
    return this.tokens[this.index] ?? this.eofToken();
  }

  private next(): Token {
    return this.tokens[this.index++] ?? this.eofToken();
  }

  private eofToken(): Token {
    return { type: 'eof', pos: this.source.text.length, value: '' };
  }

  private nextNonSpace(): Token {
    let token = this.next();
    while (token.type === 'space') token = this.next();
    return token;
  }

  private peekNonSpace(): Token {
    const at = this.index;
    const token = this.nextNonSpace();
    this.index = at;
    return token;
  }

  private unexpected(token: Token, context: string, expected: string): never {
    return this.fail(
      token.pos,
      `unexpected ${describe(token)} in ${context}; expected ${expected}`,
    );
  }

  private expectRightDelim(context: string): Token {
    const token = this.nextNonSpace();
    if (token.type !== 'rightDelim') this.unexpected(token, context, '"}}"');
    return token;
  }

  private textOrAction(): TemplateNode | Marker {
    const token = this.next();
    if (token.type === 'text') return { type: 'text', pos: token.pos, text: token.value };
    if (token.type === 'leftDelim') return this.action();
    return this.unexpected(token, 'input', 'text or "{{"');
  }

  private itemList(context: Control, open: number): [TemplateNode[], Marker] {
    const list: TemplateNode[] = [];
    for (;;) {
      if (this.peek().type === 'eof') {
        const at = this.source.position(open);
        this.fail(
          this.source.text.length,
          `unexpected end of template; expected {{end}} to close the {{${context}}} at ${at}`,
        );
      }
      const node = this.textOrAction();
      if (node.type === 'end' || node.type === 'else') return [list, node];
      list.push(node);
    }
  }

  private action(): TemplateNode | Marker {
    const token = this.nextNonSpace();
    if (token.type === 'keyword') {
      const word = token.value;
      if (word === 'if' || word === 'with' || word === 'range')
        return this.control(word, token.pos);
      switch (word) {
        case 'end':
          this.expectRightDelim('{{end}}');
          return { type: 'end', pos: token.pos };
        case 'else': {
          const following = this.peekNonSpace();
          // `{{else if ...}}` leaves the `if` pending for the enclosing control to parse.
          if (following.type !== 'keyword' || !['if', 'with'].includes(following.value)) {
            this.expectRightDelim('{{else}}');
          }
          return { type: 'else', pos: token.pos };
        }
        case 'break':
        case 'continue':
          this.expectRightDelim(`{{${word}}}`);
          if (this.rangeDepth === 0) this.fail(token.pos, `{{${word}}} outside {{range}}`);
          return word === 'break'
            ? { type: 'break', pos: token.pos }
            : { type: 'continue', pos: token.pos };
        case 'define':
        case 'template':
        case 'block':
          return this.fail(
            token.pos,
            `{{${word}}} is not supported: lmtab renders one template without named sub-templates`,
          );
      }
    }
    this.index--;
    return { type: 'action', pos: token.pos, pipe: this.pipeline('command', 'rightDelim') };
  }

  private control(context: Control, pos: number): TemplateNode {
    const mark = this.vars.length;
    const pipe = this.pipeline(context, 'rightDelim');
    if (context === 'range') this.rangeDepth++;
    const [list, end] = this.itemList(context, pos);
    if (context === 'range') this.rangeDepth--;
    let elseList: TemplateNode[] | undefined;
    // {{else if}} nests an if in the else list; its {{end}} closes the whole chain, as in Go.
    if (end.type === 'else') {
      const following = this.peekNonSpace();
      if (
        following.type === 'keyword' &&
        (following.value === 'if' || following.value === 'with')
      ) {
        if (following.value !== context) {
          this.fail(
            following.pos,
            `{{else ${following.value}}} is only allowed in {{${following.value}}}`,
          );
        }
        this.nextNonSpace();
        elseList = [this.control(context, following.pos)];
      } else {
        const [list2, end2] = this.itemList(context, pos);
        if (end2.type !== 'end') this.fail(end2.pos, `expected {{end}}; found a second {{else}}`);
        elseList = list2;
      }
    }
    this.vars.length = mark;
    const node = { pos, pipe, list, ...(elseList === undefined ? {} : { elseList }) };
    return { type: context, ...node };
  }

  // `$x := cmd | cmd`, `$x = cmd`, or in a range `$i, $e := cmd`. A variable followed by
  // anything else is an operand, so the this.tokens are read again as commands.
  private pipeline(context: string, end: TokenType): PipeNode {
    const pos = this.peekNonSpace().pos;
    const pipe: PipeNode = { type: 'pipe', pos, decl: [], isAssign: false, cmds: [] };
    for (;;) {
      const at = this.index;
      const variable = this.nextNonSpace();
      if (variable.type !== 'variable') {
        this.index = at;
        break;
      }
      const operator = this.nextNonSpace();
      if (operator.type === 'assign' || operator.type === 'declare') {
        pipe.isAssign = operator.type === 'assign';
        if (pipe.isAssign && !this.vars.includes(variable.value)) {
          this.fail(
            variable.pos,
            `undefined variable "${variable.value}"; declare it first with :=`,
          );
        }
        pipe.decl.push(variable.value);
        this.vars.push(variable.value);
        break;
      }
      if (operator.type === 'char' && operator.value === ',') {
        pipe.decl.push(variable.value);
        this.vars.push(variable.value);
        if (context !== 'range' || pipe.decl.length > 1) {
          this.fail(operator.pos, `too many declarations in ${context}`);
        }
        if (this.peekNonSpace().type !== 'variable') {
          this.fail(
            operator.pos,
            'range can only initialize variables; expected "$name" after ","',
          );
        }
        continue;
      }
      this.index = at;
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      if (token.type === end) break;
      if (token.type === 'char' && token.value === '/' && this.source.text[token.pos + 1] === '*') {
        this.fail(
          token.pos,
          'a comment must start right after "{{" or "{{- ", as in {{/* note */}}',
        );
      }
      if (!isOperandStart(token)) {
        this.unexpected(
          token,
          context,
          end === 'rightDelim' ? 'an operand or "}}"' : 'an operand or ")"',
        );
      }
      this.index--;
      pipe.cmds.push(this.command());
    }
    // A later stage receives the previous result as its last argument, so it must be a call.
    if (pipe.cmds.length === 0) this.fail(pos, `missing value for ${context}`);
    pipe.cmds.slice(1).forEach((cmd, i) => {
      const first = cmd.args[0];
      if (first !== undefined && nonExecutable.has(first.type)) {
        this.fail(
          cmd.pos,
          `non executable command in pipeline stage ${i + 2}; expected a function`,
        );
      }
    });
    return pipe;
  }

  private command(): CommandNode {
    const cmd: CommandNode = { pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      while (this.peek().type === 'space') this.next();
      const node = this.operand();
      if (node !== undefined) cmd.args.push(node);
      const token = this.next();
      if (token.type === 'space') continue;
      if (token.type === 'rightDelim' || token.type === 'rightParen') this.index--;
      else if (token.type !== 'pipe') this.unexpected(token, 'operand', 'a space, "|" or "}}"');
      break;
    }
    if (cmd.args.length === 0) this.fail(cmd.pos, 'empty command');
    return cmd;
  }

  // A term directly followed by fields (no space): `.A.B`, `$x.A`, `(pipeline).A`.
  private operand(): ArgNode | undefined {
    const node = this.term();
    if (node === undefined || this.peek().type !== 'field') return node;
    const fields: string[] = [];
    while (this.peek().type === 'field') fields.push(this.next().value.slice(1));
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
        return this.fail(node.pos, `unexpected "." after ${node.type} term`);
    }
  }

  private term(): ArgNode | undefined {
    const token = this.nextNonSpace();
    const pos = token.pos;
    switch (token.type) {
      case 'identifier':
        if (unsupportedFunctions.has(token.value)) {
          this.fail(pos, `function "${token.value}" is not supported by lmtab's template engine`);
        }
        if (!this.functions.has(token.value))
          this.fail(pos, `function "${token.value}" not defined`);
        return { type: 'identifier', pos, name: token.value };
      case 'dot':
        return { type: 'dot', pos };
      case 'variable': {
        if (!this.vars.includes(token.value)) this.fail(pos, `undefined variable "${token.value}"`);
        return { type: 'variable', pos, name: token.value, fields: [] };
      }
      case 'field':
        return { type: 'field', pos, names: [token.value.slice(1)] };
      case 'bool':
        return { type: 'bool', pos, value: token.value === 'true' };
      case 'number':
        return this.parseNumber(token);
      case 'char':
        if (token.value.startsWith("'")) return this.parseChar(token);
        break;
      case 'string':
        return { type: 'string', pos, value: token.value };
      case 'leftParen':
        return this.pipeline('parenthesized pipeline', 'rightParen');
      case 'keyword':
        if (token.value === 'nil') return { type: 'nil', pos };
        break;
    }
    this.index--;
    return undefined;
  }

  private parseNumber(token: Token): NumberNode {
    const text = token.value.replaceAll('_', '');
    const sign = text.startsWith('-') ? -1 : 1;
    const digits = text.replace(/^[+-]/, '');
    let value = Number.NaN;
    if (/^0[xX][0-9a-fA-F]+$/.test(digits)) value = parseInt(digits.slice(2), 16);
    else if (/^0[oO]?[0-7]+$/.test(digits)) value = parseInt(digits.replace(/^0[oO]?/, ''), 8);
    else if (/^0[bB][01]+$/.test(digits)) value = parseInt(digits.slice(2), 2);
    else if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(digits)) value = Number(digits);
    if (!Number.isFinite(value)) this.fail(token.pos, `bad number syntax: "${token.value}"`);
    return { type: 'number', pos: token.pos, value: sign * value, text: token.value };
  }

  private parseChar(token: Token): NumberNode {
    const value = unquoteGo(token.value, (message) => this.fail(token.pos, message));
    const code = value.codePointAt(0);
    if (code === undefined || [...value].length !== 1) {
      this.fail(token.pos, `malformed character constant: ${token.value}`);
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
