import { describe, expect, test } from 'vitest';
import { GoTemplate } from './go-template.js';
import { parseModelfile } from './parse-modelfile.js';
import type { PromptMessage } from './render-prompt.js';
import { renderPrompt } from './render-prompt.js';
import { issueModelfile } from '../../tests/support/issue-modelfile.js';

const chatml = `{{- range .Messages }}<|im_start|>{{ .Role }}
{{ .Content }}<|im_end|>
{{ end }}<|im_start|>assistant
`;

const u = (content: string): PromptMessage => ({ role: 'user', content });
const a = (content: string): PromptMessage => ({ role: 'assistant', content });
const s = (content: string): PromptMessage => ({ role: 'system', content });

describe('golden prompts', () => {
  test("the issue's System/Prompt template with system + user", () => {
    const { template = '' } = parseModelfile(issueModelfile);
    const prompt = renderPrompt(template, {
      messages: [s('You are a terse assistant.'), u('What is 2+2?')],
    });
    expect(prompt).toMatchInlineSnapshot(`
      "<|startoftext|><|im_start|>system
      You are a terse assistant.<|im_end|>
      <|im_start|>user
      What is 2+2?<|im_end|>
      <|im_start|>assistant
      "
    `);
  });

  test("the issue's template over several turns renders each turn, system only in the first", () => {
    const { template = '' } = parseModelfile(issueModelfile);
    const prompt = renderPrompt(template, {
      messages: [s('Be brief.'), u('Hi'), a('Hello!'), u('Bye')],
    });
    expect(prompt).toMatchInlineSnapshot(`
      "<|startoftext|><|im_start|>system
      Be brief.<|im_end|>
      <|im_start|>user
      Hi<|im_end|>
      <|im_start|>assistant
      Hello!<|startoftext|><|im_start|>system
      <|im_end|>
      <|im_start|>user
      Bye<|im_end|>
      <|im_start|>assistant
      "
    `);
  });

  test('a range .Messages ChatML template with system/user/assistant/user', () => {
    const prompt = renderPrompt(chatml, {
      messages: [
        s('You are helpful.'),
        u('Hello!'),
        a('Hi, how can I help?'),
        u('Tell me a joke.'),
      ],
    });
    expect(prompt).toMatchInlineSnapshot(`
      "<|im_start|>system
      You are helpful.<|im_end|>
      <|im_start|>user
      Hello!<|im_end|>
      <|im_start|>assistant
      Hi, how can I help?<|im_end|>
      <|im_start|>user
      Tell me a joke.<|im_end|>
      <|im_start|>assistant
      "
    `);
  });
});

// ollama/ollama template/template_test.go TestExecuteWithMessages: three spellings of one
// template (no .Response, with .Response, with .Messages) render the same prompt.
describe("Ollama's TestExecuteWithMessages", () => {
  const mistralSystem = `[INST] {{ if .System }}{{ .System }}

{{ end }}`;
  const cases: {
    name: string;
    templates: string[];
    messages: PromptMessage[];
    expected: string;
  }[] = [
    {
      name: 'mistral',
      templates: [
        `${mistralSystem}{{ .Prompt }}[/INST] `,
        `${mistralSystem}{{ .Prompt }}[/INST] {{ .Response }}`,
        `${mistralSystem}
{{- range .Messages }}
{{- if eq .Role "user" }}{{ .Content }}[/INST] {{ else if eq .Role "assistant" }}{{ .Content }}[INST] {{ end }}
{{- end }}`,
      ],
      messages: [u('Hello friend!'), a('Hello human!'), u('What is your name?')],
      expected: '[INST] Hello friend![/INST] Hello human![INST] What is your name?[/INST] ',
    },
    {
      name: 'mistral system',
      templates: [
        `${mistralSystem}{{ .Prompt }}[/INST] `,
        `${mistralSystem}{{ .Prompt }}[/INST] {{ .Response }}`,
        `${mistralSystem}
{{- range .Messages }}
{{- if eq .Role "user" }}{{ .Content }}[/INST] {{ else if eq .Role "assistant" }}{{ .Content }}[INST] {{ end }}
{{- end }}`,
      ],
      messages: [
        s('You are a helpful assistant!'),
        u('Hello friend!'),
        a('Hello human!'),
        u('What is your name?'),
      ],
      expected:
        '[INST] You are a helpful assistant!\n\nHello friend![/INST] Hello human![INST] What is your name?[/INST] ',
    },
    {
      name: 'mistral assistant (the reply is continued)',
      templates: [
        '[INST] {{ .Prompt }}[/INST] ',
        '[INST] {{ .Prompt }}[/INST] {{ .Response }}',
        `
{{- range $i, $m := .Messages }}
{{- if eq .Role "user" }}[INST] {{ .Content }}[/INST] {{ else if eq .Role "assistant" }}{{ .Content }}{{ end }}
{{- end }}`,
      ],
      messages: [
        u('Hello friend!'),
        a('Hello human!'),
        u('What is your name?'),
        a('My name is Ollama and I'),
      ],
      expected:
        '[INST] Hello friend![/INST] Hello human![INST] What is your name?[/INST] My name is Ollama and I',
    },
    {
      name: 'chatml',
      templates: [
        `{{ if .System }}<|im_start|>system
{{ .System }}<|im_end|>
{{ end }}{{ if .Prompt }}<|im_start|>user
{{ .Prompt }}<|im_end|>
{{ end }}<|im_start|>assistant
{{ .Response }}<|im_end|>
`,
        `
{{- range $index, $_ := .Messages }}<|im_start|>{{ .Role }}
{{ .Content }}<|im_end|>
{{ end }}<|im_start|>assistant
`,
      ],
      messages: [
        s('You are a helpful assistant!'),
        u('Hello friend!'),
        a('Hello human!'),
        u('What is your name?'),
      ],
      expected: `<|im_start|>system
You are a helpful assistant!<|im_end|>
<|im_start|>user
Hello friend!<|im_end|>
<|im_start|>assistant
Hello human!<|im_end|>
<|im_start|>user
What is your name?<|im_end|>
<|im_start|>assistant
`,
    },
  ];
  for (const { name, templates, messages, expected } of cases) {
    test.each(templates.map((t, i) => [i, t]))(`${name}, spelling %i`, (_i, template) => {
      expect(renderPrompt(template, { messages })).toBe(expected);
    });
  }
});

describe('system and history', () => {
  const tagged = '{{ range .Messages }}[{{ .Role }}]{{ .Content }}{{ end }}|{{ .System }}';

  test('the Modelfile SYSTEM leads when the request has no system message', () => {
    const prompt = renderPrompt(tagged, { system: 'default', messages: [u('hi')] });
    expect(prompt).toBe('[system]default[user]hi|default');
  });

  test("a request's leading system message overrides the Modelfile SYSTEM", () => {
    const prompt = renderPrompt(tagged, { system: 'default', messages: [s('mine'), u('hi')] });
    expect(prompt).toBe('[system]mine[user]hi|mine');
  });

  test('an empty Modelfile SYSTEM adds nothing', () => {
    expect(renderPrompt(tagged, { system: '', messages: [u('hi')] })).toBe('[user]hi|');
  });

  test('MESSAGE history comes after the system and before the request', () => {
    const prompt = renderPrompt(tagged, {
      system: 'default',
      history: [u('Is Paris in France?'), a('yes')],
      messages: [s('mine'), u('Is Rome in France?')],
    });
    expect(prompt).toBe(
      '[system]mine[user]Is Paris in France?[assistant]yes[user]Is Rome in France?|mine',
    );
  });

  test('consecutive messages of one role merge and .System joins every system message', () => {
    const prompt = renderPrompt(tagged, {
      messages: [s('one'), s('two'), u('a'), u('b'), a('c'), s('three'), u('d')],
    });
    expect(prompt).toBe(
      '[system]one\n\ntwo[user]a\n\nb[assistant]c[system]three[user]d|one\n\ntwo\n\nthree',
    );
  });

  test('the legacy path puts a system message into the turn that follows it', () => {
    const prompt = renderPrompt('<{{ .System }}|{{ .Prompt }}|{{ .Response }}>', {
      messages: [u('q1'), a('r1'), s('late'), u('q2')],
    });
    expect(prompt).toBe('<|q1|r1><late|q2|');
  });
});

describe('legacy templates', () => {
  test('text after .Response is cut from the last turn only', () => {
    const prompt = renderPrompt('U:{{ .Prompt }} A:{{ .Response }}</s>', {
      messages: [u('1'), a('one'), u('2')],
    });
    expect(prompt).toBe('U:1 A:one</s>U:2 A:');
  });

  test('a .Response inside an if still cuts what follows it', () => {
    const template = '{{ .Prompt }}{{ if .Prompt }}=>{{ .Response }}<end>{{ end }}<tail>';
    expect(renderPrompt(template, { messages: [u('q'), a('r'), u('q2')] })).toBe(
      'q=>r<end><tail>q2=>',
    );
  });

  test('a template without .Response gets one appended, as in Ollama', () => {
    expect(renderPrompt('Q: {{ .Prompt }}\nA: ', { messages: [u('x'), a('y'), u('z')] })).toBe(
      'Q: x\nA: yQ: z\nA: ',
    );
  });

  test('no messages renders the template once with empty values', () => {
    expect(renderPrompt('{{ .System }}{{ .Prompt }}!', { messages: [] })).toBe('!');
  });

  test('a parsed template can be reused', () => {
    const template = GoTemplate.parse('{{ .Prompt }}');
    expect(renderPrompt(template, { messages: [u('a')] })).toBe('a');
    expect(renderPrompt(template, { messages: [u('b')] })).toBe('b');
  });

  test('currentDate uses the injected clock', () => {
    const now = (): Date => new Date(2026, 0, 1, 12);
    const template =
      '{{ range .Messages }}{{ .Content }}{{ end }} {{ currentDate }} {{ yesterdayDate }}';
    expect(renderPrompt(template, { messages: [u('Hi')], now })).toBe('Hi 2026-01-01 2025-12-31');
  });
});
