import { LmtabError } from '../errors/index.js';

/** Where a template's text sits, so errors can name a `line:col` of the file the user edits. */
export interface TemplateOrigin {
  /** What error messages call the file; default `Template`. */
  name?: string;
  /** Line of the file holding the template's first character; default 1. */
  line?: number;
  /** Column (1-based) of the template's first character on that line; default 1. */
  column?: number;
  /** Words put before each message, such as `TEMPLATE`; default none. */
  context?: string;
}

/** Template text with its origin; turns character offsets into positioned LmtabErrors. */
export class TemplateSource {
  readonly text: string;
  private readonly origin: TemplateOrigin;

  constructor(text: string, origin: TemplateOrigin = {}) {
    this.text = text;
    this.origin = origin;
  }

  /** `line:col` of an offset into the text, counted in the origin's file. */
  position(offset: number): string {
    const before = this.text.slice(0, offset);
    const lineIndex = before.split('\n').length - 1;
    const column = offset - (before.lastIndexOf('\n') + 1) + 1;
    const line = (this.origin.line ?? 1) + lineIndex;
    return `${line}:${lineIndex === 0 ? (this.origin.column ?? 1) + column - 1 : column}`;
  }

  /** An `invalid_request` error naming the position of an offset. */
  error(offset: number, message: string): LmtabError {
    const context = this.origin.context === undefined ? '' : `${this.origin.context}: `;
    const where = `${this.origin.name ?? 'Template'} line ${this.position(offset)}`;
    return new LmtabError('invalid_request', `${where}: ${context}${message}`);
  }
}
