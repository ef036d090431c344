import { describe, expect, test } from 'vitest';
import { LmtabError } from '../errors/index.js';
import type { ModelCustomization } from './model-customization.js';
import { parseModelfile } from './parse-modelfile.js';
import { issueModelfile } from '../../tests/support/issue-modelfile.js';

function errorOf(text: string): string {
  try {
    parseModelfile(text);
  } catch (error) {
    if (!(error instanceof LmtabError)) throw error;
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    return error.message;
  }
  throw new Error('expected parseModelfile to fail');
}

describe('parseModelfile', () => {
  test("parses the issue's Modelfile into a ModelCustomization", () => {
    const modelfile = parseModelfile(issueModelfile);
    const customization: ModelCustomization = modelfile;
    expect(customization).toStrictEqual({
      from: './tiny.gguf',
      template:
        '<|startoftext|><|im_start|>system\n{{ .System }}<|im_end|>\n<|im_start|>user\n{{ .Prompt }}<|im_end|>\n<|im_start|>assistant\n',
      parameters: {
        temperature: 0.3,
        top_k: 50,
        repeat_penalty: 1.05,
        stop: ['<|im_end|>', '<|endoftext|>'],
      },
      messages: [],
    });
  });

  test('reads every directive, comments, any case, and each quoting form', () => {
    const modelfile = parseModelfile(
      [
        '# a comment',
        '  # an indented comment',
        'from hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
        '',
        'System You are Mario from Super Mario Bros.',
        'Parameter TEMPERATURE 1',
        '\tPARAMETER\tnum_ctx\t4096',
        'PARAMETER seed -1',
        'PARAMETER num_predict -1',
        'PARAMETER min_p .05',
        'PARAMETER top_p "0.9"',
        'PARAMETER stop "  padded  "',
        'MESSAGE user Is Toronto in Canada?',
        'MESSAGE Assistant yes',
        'MESSAGE system """Answer',
        'in one word."""',
        'LICENSE """',
        'MIT',
        '"""',
        'license "second license"',
        'TEMPLATE {{ .Prompt }}',
      ].join('\n'),
    );
    expect(modelfile).toStrictEqual({
      from: 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
      template: '{{ .Prompt }}',
      system: 'You are Mario from Super Mario Bros.',
      parameters: {
        temperature: 1,
        num_ctx: 4096,
        seed: -1,
        num_predict: -1,
        min_p: 0.05,
        top_p: 0.9,
        stop: ['  padded  '],
      },
      messages: [
        { role: 'user', content: 'Is Toronto in Canada?' },
        { role: 'assistant', content: 'yes' },
        { role: 'system', content: 'Answer\nin one word.' },
      ],
      license: '\nMIT\n\nsecond license',
    });
  });

  test.each([
    ['SYSTEM ""', ''],
    ['SYSTEM """"""', ''],
    ['SYSTEM "He said "hi""', 'He said "hi"'],
    ['SYSTEM """a "quoted" word"""', 'a "quoted" word'],
    ['SYSTEM say "hi"', 'say "hi"'],
    ['SYSTEM   spaced out  ', 'spaced out'],
    ['SYSTEM "multi\nline"  ', 'multi\nline'],
    ['SYSTEM """\n  keeps   \n  inner spacing\n"""', '\n  keeps   \n  inner spacing\n'],
    ['SYSTEM """a\nb""" ', 'a\nb'],
    ['SYSTEM """x "" y\n# not a comment\n"""', 'x "" y\n# not a comment\n'],
    ['SYSTEM hash # is kept', 'hash # is kept'],
  ])('%j reads as %j', (line, system) => {
    expect(parseModelfile(`FROM m\n${line}`).system).toBe(system);
  });

  test('CRLF line endings and a byte-order mark are accepted', () => {
    const modelfile = parseModelfile(
      '\uFEFFFROM m\r\nSYSTEM """a\r\nb"""\r\nPARAMETER top_k 5\r\n',
    );
    expect(modelfile).toStrictEqual({
      from: 'm',
      system: 'a\nb',
      parameters: { top_k: 5 },
      messages: [],
    });
  });

  test('a repeated directive takes its last value, as in Ollama', () => {
    const modelfile = parseModelfile(
      'FROM m\nSYSTEM one\nSYSTEM two\nPARAMETER top_k 1\nPARAMETER top_k 2',
    );
    expect(modelfile.system).toBe('two');
    expect(modelfile.parameters.top_k).toBe(2);
  });
});

describe('parseModelfile errors name the line', () => {
  test.each([
    [
      'missing FROM',
      '# nothing\nSYSTEM hi\n',
      'Modelfile has no FROM line (read 3 lines); expected one such as "FROM ./model.gguf" or "FROM hf.co/ORG/REPO:Q4_K_M"',
    ],
    [
      'a second FROM',
      'FROM a\nFROM b',
      'Modelfile line 2: a second FROM (the first is on line 1); lmtab takes one base model and pairs a vision projector itself',
    ],
    ['FROM without a value', 'FROM   ', 'Modelfile line 1: FROM needs a value'],
    [
      'an empty FROM',
      'FROM ""',
      'Modelfile line 1: FROM needs a model reference or a path to a .gguf file',
    ],
    [
      'an unknown directive',
      'FROM m\n\nTEMPERATURE 0.3',
      'Modelfile line 3: unknown directive "TEMPERATURE" (expected one of FROM, TEMPLATE, SYSTEM, PARAMETER, MESSAGE, LICENSE)',
    ],
    [
      'an unknown parameter',
      'FROM m\nPARAMETER top_k 5\n\nPARAMETER tempature 0.3',
      'Modelfile line 4: unknown parameter "tempature" (expected one of temperature, top_k, top_p, min_p, repeat_penalty, repeat_last_n, presence_penalty, frequency_penalty, num_predict, num_ctx, seed, stop)',
    ],
    [
      'an Ollama-only parameter',
      'FROM m\nPARAMETER num_gpu 99',
      'Modelfile line 2: parameter "num_gpu" is an Ollama setting lmtab does not use (lmtab supports temperature, top_k, top_p, min_p, repeat_penalty, repeat_last_n, presence_penalty, frequency_penalty, num_predict, num_ctx, seed, stop)',
    ],
    [
      'PARAMETER without a name',
      'FROM m\nPARAMETER',
      'Modelfile line 2: PARAMETER needs a name and a value',
    ],
    [
      'PARAMETER without a value',
      'FROM m\nPARAMETER top_k',
      'Modelfile line 2: PARAMETER top_k needs a value',
    ],
    [
      'a float for an int',
      'FROM m\nPARAMETER top_k 0.5',
      'Modelfile line 2: PARAMETER top_k must be an integer, got "0.5"',
    ],
    [
      'a bad number',
      'FROM m\nPARAMETER temperature warm',
      'Modelfile line 2: PARAMETER temperature must be a number, got "warm"',
    ],
    [
      'a comment after a value',
      'FROM m\nPARAMETER temperature 0.3 # creative',
      'Modelfile line 2: PARAMETER temperature must be a number, got "0.3 # creative"',
    ],
    [
      'a number out of range',
      'FROM m\nPARAMETER top_p 1.5',
      'Modelfile line 2: PARAMETER top_p must be between 0 and 1, got 1.5',
    ],
    [
      'a negative temperature',
      'FROM m\nPARAMETER temperature -1',
      'Modelfile line 2: PARAMETER temperature must be at least 0, got -1',
    ],
    [
      'an empty stop',
      'FROM m\nPARAMETER stop ""',
      'Modelfile line 2: PARAMETER stop must not be empty',
    ],
    [
      'a bad MESSAGE role',
      'FROM m\nMESSAGE tool {"ok": true}',
      'Modelfile line 2: unknown MESSAGE role "tool" (expected system, user or assistant)',
    ],
    [
      'MESSAGE without content',
      'FROM m\nMESSAGE user',
      'Modelfile line 2: MESSAGE user needs a value',
    ],
    [
      'an unterminated """',
      'FROM m\nSYSTEM hi\nTEMPLATE """{{ .Prompt }}\nPARAMETER top_k 5\n',
      'Modelfile line 3: unterminated """ opened on this line; expected a closing """ at the end of a line',
    ],
    [
      'an unterminated "',
      'FROM m\nSYSTEM "hello" world\nPARAMETER top_k 5',
      'Modelfile line 2: unterminated " opened on this line; expected a closing " at the end of a line',
    ],
    [
      'ADAPTER',
      'FROM m\nADAPTER ./lora.gguf',
      "Modelfile line 2: ADAPTER ./lora.gguf is not supported: lmtab cannot apply LoRA adapters; merge the adapter into the model first (llama.cpp's llama-export-lora) and use FROM with the merged GGUF",
    ],
    [
      'REQUIRES',
      'FROM m\nREQUIRES 0.14.0',
      'Modelfile line 2: REQUIRES 0.14.0 is not supported: lmtab is not Ollama and has no Ollama version; remove the REQUIRES line',
    ],
    [
      'a TEMPLATE that does not parse, at its line:col in the Modelfile',
      'FROM m\nTEMPLATE """{{ if .System }}{{ .System }}\n{{ end }}{{ .Prompt }\n"""',
      'Modelfile line 3:10: TEMPLATE: unclosed action; expected "}}"',
    ],
    [
      'a TEMPLATE error on its first line counts columns from the opening quotes',
      'FROM m\nTEMPLATE   """{{ .Prompt | nope }}"""',
      'Modelfile line 2:28: TEMPLATE: function "nope" not defined',
    ],
  ])('%s', (_name, text, message) => {
    expect(errorOf(text)).toBe(message);
  });
});
