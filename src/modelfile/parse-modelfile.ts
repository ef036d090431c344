import { LmtabError } from '../errors/index.js';
import { GoTemplate } from './go-template.js';
import type { Modelfile, ModelfileMessage, ModelfileParameters } from './modelfile.js';
import {
  isParameterName,
  ollamaOnlyParameters,
  parameterNameList,
  readParameterValue,
} from './parameter-specs.js';

const supported = ['from', 'template', 'system', 'parameter', 'message', 'license'];

/** Ollama directives lmtab reads but cannot honour, with the reason given to the user. */
const unsupported: Record<string, string> = {
  adapter:
    "lmtab cannot apply LoRA adapters; merge the adapter into the model first (llama.cpp's llama-export-lora) and use FROM with the merged GGUF",
  draft: 'lmtab does not run draft models for speculative decoding; remove the DRAFT line',
  renderer: 'lmtab renders prompts only with TEMPLATE; remove the RENDERER line',
  parser: "lmtab does not use Ollama's output parsers; remove the PARSER line",
  requires: 'lmtab is not Ollama and has no Ollama version; remove the REQUIRES line',
};

const roles = ['system', 'user', 'assistant'] as const;

/** A value read from a Modelfile, with the line and column where its text starts. */
interface Value {
  text: string;
  line: number;
  column: number;
  /** Index of the last line the value used. */
  end: number;
}

/** Parses an Ollama Modelfile; each error is an `invalid_request` LmtabError naming the line. */
export function parseModelfile(text: string): Modelfile {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const fail = (line: number, message: string): never => {
    throw new LmtabError('invalid_request', `Modelfile line ${line}: ${message}`);
  };

  let from: { text: string; line: number } | undefined;
  let template: string | undefined;
  let system: string | undefined;
  const parameters: ModelfileParameters = {};
  const messages: ModelfileMessage[] = [];
  const licenses: string[] = [];

  // Ollama's parser is a rune state machine; reading by lines accepts the same Modelfiles: `#`
  // starts a comment only at the start of a line, and a value ends with its line unless quoted.
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const lineNo = i + 1;
    const start = line.length - line.replace(/^[ \t]+/, '').length;
    if (start === line.length || line[start] === '#') continue;

    const word = readWord(line, start);
    const directive = word.toLowerCase();
    if (!supported.includes(directive) && unsupported[directive] === undefined) {
      fail(
        lineNo,
        `unknown directive "${word}" (expected one of FROM, TEMPLATE, SYSTEM, PARAMETER, MESSAGE, LICENSE)`,
      );
    }
    const name = directive.toUpperCase();
    let column = start + word.length;

    let key = '';
    if (directive === 'parameter' || directive === 'message') {
      key = readWord(line, skipBlanks(line, column));
      if (key === '') {
        fail(
          lineNo,
          `${name} needs ${directive === 'parameter' ? 'a name' : 'a role'} and a value`,
        );
      }
      column = skipBlanks(line, column) + key.length;
    }
    if (skipBlanks(line, column) === line.length) {
      fail(lineNo, `${[name, key].join(' ').trim()} needs a value`);
    }
    const value = readValue(lines, i, column, fail);
    i = value.end;

    const reason = unsupported[directive];
    if (reason !== undefined) fail(lineNo, `${name} ${value.text} is not supported: ${reason}`);

    switch (directive) {
      case 'from':
        if (from !== undefined) {
          fail(
            lineNo,
            `a second FROM (the first is on line ${from.line}); lmtab takes one base model and pairs a vision projector itself`,
          );
        }
        if (value.text === '')
          fail(lineNo, 'FROM needs a model reference or a path to a .gguf file');
        from = { text: value.text, line: lineNo };
        break;
      case 'template':
        GoTemplate.parse(value.text, {
          name: 'Modelfile',
          line: value.line,
          column: value.column,
          context: 'TEMPLATE',
        });
        template = value.text;
        break;
      case 'system':
        system = value.text;
        break;
      case 'license':
        licenses.push(value.text);
        break;
      case 'message': {
        const role = roles.find((r) => r === key.toLowerCase());
        if (role === undefined) {
          fail(lineNo, `unknown MESSAGE role "${key}" (expected system, user or assistant)`);
        } else {
          messages.push({ role, content: value.text });
        }
        break;
      }
      case 'parameter':
        setParameter(parameters, key.toLowerCase(), value.text, (message) => fail(lineNo, message));
        break;
    }
  }

  if (from === undefined) {
    throw new LmtabError(
      'invalid_request',
      `Modelfile has no FROM line (read ${lines.length} lines); expected one such as "FROM ./model.gguf" or "FROM hf.co/ORG/REPO:Q4_K_M"`,
    );
  }
  return {
    from: from.text,
    ...(template === undefined ? {} : { template }),
    ...(system === undefined ? {} : { system }),
    parameters,
    messages,
    ...(licenses.length === 0 ? {} : { license: licenses.join('\n') }),
  };
}

function setParameter(
  parameters: ModelfileParameters,
  name: string,
  text: string,
  fail: (message: string) => never,
): void {
  if (!isParameterName(name)) {
    if (ollamaOnlyParameters.has(name)) {
      fail(
        `parameter "${name}" is an Ollama setting lmtab does not use (lmtab supports ${parameterNameList})`,
      );
    }
    return fail(`unknown parameter "${name}" (expected one of ${parameterNameList})`);
  }
  const read = readParameterValue(name, text);
  if ('problem' in read) return fail(`PARAMETER ${name} ${read.problem}`);
  if (name === 'stop') {
    parameters.stop = [...(parameters.stop ?? []), String(read.value)];
  } else {
    // A repeated parameter takes its last value, as in Ollama.
    Object.assign(parameters, { [name]: read.value });
  }
}

function skipBlanks(line: string, column: number): number {
  let i = column;
  while (line[i] === ' ' || line[i] === '\t') i++;
  return i;
}

function readWord(line: string, column: number): string {
  return /^[^ \t]*/.exec(line.slice(column))?.[0] ?? '';
}

/**
 * Reads a value starting at `column` of line `index`. A value opening with `"""` or `"` runs
 * until a line (this one or a later one) whose trimmed end is the same quote, as in Ollama.
 */
function readValue(
  lines: readonly string[],
  index: number,
  column: number,
  fail: (line: number, message: string) => never,
): Value {
  const rest = (lines[index] ?? '').slice(column).trimStart();
  const startColumn = (lines[index] ?? '').length - rest.length + 1;
  const quote = rest.startsWith('"""') ? '"""' : rest.startsWith('"') ? '"' : '';
  if (quote === '')
    return { text: rest.trimEnd(), line: index + 1, column: startColumn, end: index };

  let body = rest.slice(quote.length);
  let last = body;
  for (let end = index; ;) {
    if (last.trimEnd().endsWith(quote)) {
      const text = body.trimEnd().slice(0, -quote.length);
      return { text, line: index + 1, column: startColumn + quote.length, end };
    }
    end++;
    if (end >= lines.length) {
      fail(
        index + 1,
        `unterminated ${quote} opened on this line; expected a closing ${quote} at the end of a line`,
      );
    }
    last = lines[end] ?? '';
    body += `\n${last}`;
  }
}
