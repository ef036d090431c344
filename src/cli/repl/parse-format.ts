import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LmtabError } from '../../errors/index.js';

/** What `format` asks of an answer: any JSON (`"json"`), or JSON valid against a schema. */
export type AnswerFormat = 'json' | Record<string, unknown>;

/** Options of {@link parseFormat}. */
export interface ParseFormatOptions {
  /** Folder `@file` paths are read from. */
  cwd: string;
  /** Reads a file as UTF-8; default `fs.readFileSync`. */
  readFile?: (path: string) => string;
  /** Where the value came from, named in errors; default `--format`. */
  source?: string;
}

/**
 * Reads a `--format` (or `/set format`) value as Ollama's `format` field takes it: `json`, a JSON
 * Schema object written inline (`'{"type":"object",...}'`), or `@schema.json`, a file holding one.
 */
export function parseFormat(value: string, options: ParseFormatOptions): AnswerFormat {
  const source = options.source ?? '--format';
  const text = value.trim();
  if (text.toLowerCase() === 'json') return 'json';
  let schemaText = text;
  let where = 'the value';
  if (text.startsWith('@')) {
    const path = resolve(options.cwd, text.slice(1));
    where = path;
    try {
      schemaText = (options.readFile ?? ((p) => readFileSync(p, 'utf8')))(path);
    } catch (error) {
      throw new LmtabError(
        'invalid_request',
        `${source}: cannot read the schema file ${path}: ${(error as Error).message}`,
      );
    }
  } else if (!text.startsWith('{')) {
    throw new LmtabError(
      'invalid_request',
      `${source}: expected json, a JSON Schema object such as '{"type":"object"}', or @schema.json; got "${value}".`,
    );
  }
  let schema: unknown;
  try {
    schema = JSON.parse(schemaText);
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `${source}: ${where} is not valid JSON: ${(error as Error).message}`,
    );
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new LmtabError(
      'invalid_request',
      `${source}: a JSON Schema must be an object; ${where} holds ${Array.isArray(schema) ? 'an array' : JSON.stringify(schema)}.`,
    );
  }
  return schema as Record<string, unknown>;
}
