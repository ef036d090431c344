/** A node of a parsed template body: literal text, an action or a control structure. */
export type TemplateNode =
  TextNode | ActionNode | IfNode | WithNode | RangeNode | BreakNode | ContinueNode;

/** Text copied to the output as is (after `{{-`/`-}}` trimming, done by the lexer). */
export interface TextNode {
  type: 'text';
  pos: number;
  text: string;
}

/** `{{ pipeline }}`: prints the value unless the pipeline declares or assigns a variable. */
export interface ActionNode {
  type: 'action';
  pos: number;
  pipe: PipeNode;
}

/** Shared shape of `if`, `with` and `range`. */
export interface BranchFields {
  pos: number;
  pipe: PipeNode;
  list: TemplateNode[];
  /** Body of `{{else}}`; an `{{else if}}` is a nested node here, as in Go. */
  elseList?: TemplateNode[];
}

/** `{{if}}`. */
export interface IfNode extends BranchFields {
  type: 'if';
}

/** `{{with}}`. */
export interface WithNode extends BranchFields {
  type: 'with';
}

/** `{{range}}`. */
export interface RangeNode extends BranchFields {
  type: 'range';
}

/** `{{break}}`. */
export interface BreakNode {
  type: 'break';
  pos: number;
}

/** `{{continue}}`. */
export interface ContinueNode {
  type: 'continue';
  pos: number;
}

/** `$x := cmd | cmd ...`: commands joined by `|`, with optional variable declarations. */
export interface PipeNode {
  type: 'pipe';
  pos: number;
  /** Declared or assigned variables, with `$`; two only in `range $i, $e := ...`. */
  decl: string[];
  /** `=` (assign existing) rather than `:=` (declare). */
  isAssign: boolean;
  cmds: CommandNode[];
}

/** One command of a pipeline: an operand, or a function name followed by its arguments. */
export interface CommandNode {
  pos: number;
  args: ArgNode[];
}

/** An operand of a command. */
export type ArgNode =
  | FieldNode
  | VariableNode
  | ChainNode
  | PipeNode
  | IdentifierNode
  | DotNode
  | NilNode
  | BoolNode
  | NumberNode
  | StringNode;

/** `.A.B`: fields (or map keys) of dot. */
export interface FieldNode {
  type: 'field';
  pos: number;
  names: string[];
}

/** `$x.A.B`: a variable, with optional fields. */
export interface VariableNode {
  type: 'variable';
  pos: number;
  /** With `$`; `$` alone is the data passed to render. */
  name: string;
  fields: string[];
}

/** `(pipeline).A` or `fn.A`: fields of a computed value. */
export interface ChainNode {
  type: 'chain';
  pos: number;
  node: PipeNode | IdentifierNode;
  fields: string[];
}

/** A function name. */
export interface IdentifierNode {
  type: 'identifier';
  pos: number;
  name: string;
}

/** `.` */
export interface DotNode {
  type: 'dot';
  pos: number;
}

/** `nil` */
export interface NilNode {
  type: 'nil';
  pos: number;
}

/** `true` or `false`. */
export interface BoolNode {
  type: 'bool';
  pos: number;
  value: boolean;
}

/** A number or character constant. */
export interface NumberNode {
  type: 'number';
  pos: number;
  value: number;
  text: string;
}

/** A quoted or raw string constant, unquoted. */
export interface StringNode {
  type: 'string';
  pos: number;
  value: string;
}
