import type { ArgNode, PipeNode, TemplateNode } from './go-template-ast.js';
import { executeTemplate } from './go-template-exec.js';
import { templateFunctions } from './go-template-functions.js';
import { parseTemplateTree } from './go-template-parser.js';
import { TemplateSource } from './go-template-source.js';
import type { TemplateOrigin } from './go-template-source.js';

/** Nodes and loop iterations a template may run: bounds a runaway `range`. */
export const defaultMaxSteps = 1_000_000;

/** Options of {@link GoTemplate.parse}: where the text sits, for `line:col` in error messages. */
export type ParseTemplateOptions = TemplateOrigin;

/** Options of {@link GoTemplate.render}. */
export interface RenderTemplateOptions {
  /** Clock for Ollama's `currentDate` and `yesterdayDate`; default `() => new Date()`. */
  now?: () => Date;
  /** Nodes and loop iterations run before rendering fails; default {@link defaultMaxSteps}. */
  maxSteps?: number;
}

/** A Go text/template (the subset prompt templates use), parsed once and rendered many times. */
export class GoTemplate {
  /** The template text. */
  readonly source: string;
  /** The parsed tree. */
  readonly root: readonly TemplateNode[];
  private readonly text: TemplateSource;

  private constructor(text: TemplateSource, root: readonly TemplateNode[]) {
    this.text = text;
    this.source = text.text;
    this.root = root;
  }

  /** Parses template text; an `invalid_request` LmtabError names `line:col` and what it expected. */
  static parse(source: string, options: ParseTemplateOptions = {}): GoTemplate {
    const text = new TemplateSource(source, options);
    return new GoTemplate(text, parseTemplateTree(text, templateFunctions));
  }

  /** Renders with `data` as dot and `$`; an `invalid_request` LmtabError names `line:col`. */
  render(data: unknown, options: RenderTemplateOptions = {}): string {
    return executeTemplate(this.root, data, this.text, {
      functions: templateFunctions,
      now: options.now ?? (() => new Date()),
      maxSteps: options.maxSteps ?? defaultMaxSteps,
    });
  }

  /** The same template with another tree (for rewrites such as Ollama's cut after `.Response`). */
  withRoot(root: readonly TemplateNode[]): GoTemplate {
    return new GoTemplate(this.text, root);
  }

  /** Field and variable names the template uses, lower-cased and sorted (Ollama's `Vars()`). */
  identifiers(): string[] {
    const names = new Set<string>();
    const fromArg = (arg: ArgNode): void => {
      if (arg.type === 'field') arg.names.forEach((n) => names.add(n.toLowerCase()));
      else if (arg.type === 'variable')
        [arg.name, ...arg.fields].forEach((n) => names.add(n.toLowerCase()));
      else if (arg.type === 'pipe') fromPipe(arg);
      else if (arg.type === 'chain') {
        fromArg(arg.node);
        arg.fields.forEach((n) => names.add(n.toLowerCase()));
      }
    };
    const fromPipe = (pipe: PipeNode): void =>
      pipe.cmds.forEach((cmd) => cmd.args.forEach(fromArg));
    const fromList = (list: readonly TemplateNode[]): void => {
      for (const node of list) {
        if (node.type === 'action') fromPipe(node.pipe);
        if (node.type === 'if' || node.type === 'with' || node.type === 'range') {
          fromPipe(node.pipe);
          fromList(node.list);
          fromList(node.elseList ?? []);
        }
      }
    };
    fromList(this.root);
    return [...names].sort();
  }
}
