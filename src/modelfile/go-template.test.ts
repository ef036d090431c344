import { describe, expect, test } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { GoTemplate } from './go-template.js';

const render = (source: string, data: unknown = {}): string =>
  GoTemplate.parse(source).render(data);

function errorOf(fn: () => unknown): LmtabError {
  try {
    fn();
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected an LmtabError');
}
const parseError = (source: string): string => {
  const error = errorOf(() => GoTemplate.parse(source));
  expect(error.code).toBe('invalid_request');
  return error.message;
};
const renderError = (source: string, data: unknown = {}): string => {
  const error = errorOf(() => render(source, data));
  expect(error.code).toBe('invalid_request');
  return error.message;
};

describe('whitespace trimming', () => {
  test.each([
    ['{{23 -}} < {{- 45}}', '23<45'],
    ['a \n\t {{- "b" }}', 'ab'],
    ['{{ "a" -}} \r\n\t b', 'ab'],
    ['a  {{- "b" -}}  c', 'abc'],
    ['a {{ "b" }} c', 'a b c'],
    ['{{-3}}', '-3'],
    ['{{ 3 -}}x', '3x'],
    ['x\n{{- /* comment */ -}}\ny', 'xy'],
    ['x {{/* comment\nover lines */}} y', 'x  y'],
    ['{{ .A\n-}}\n  z', 'az'],
    ['{{- if true }}\n  yes\n{{- end }}\n', '\n  yes\n'],
  ])('%j renders %j', (source, expected) => {
    expect(render(source, { A: 'a' })).toBe(expected);
  });
});

describe('fields and variables', () => {
  const data = {
    System: 'sys',
    Messages: [{ Role: 'user', Content: 'hi' }],
    Nested: { A: { B: 1 } },
  };

  test.each([
    ['{{ .System }}', 'sys'],
    ['{{ $.System }}', 'sys'],
    ['{{ .Nested.A.B }}', '1'],
    ['{{ range .Messages }}{{ .Role }}:{{ .Content }}/{{ $.System }}{{ end }}', 'user:hi/sys'],
    ['{{ range $i, $m := .Messages }}{{ $i }}={{ $m.Role }}{{ end }}', '0=user'],
    ['{{ range $m := .Messages }}{{ $m.Content }}{{ end }}', 'hi'],
    ['{{ $x := "a" }}{{ $x }}{{ $x = "b" }}{{ $x }}', 'ab'],
    ['{{ $x := 1 }}{{ range .Messages }}{{ $x = 2 }}{{ end }}{{ $x }}', '2'],
    ['{{ with $n := .Nested }}{{ $n.A.B }}{{ end }}', '1'],
    ['{{ (index .Messages 0).Role }}', 'user'],
    ['{{ .Missing }}', '<no value>'],
    ['{{ .Missing.Deeper }}', '<no value>'],
    ['{{ "quoted\\t" }}|{{ `raw\\t` }}|{{ \'a\' }}', 'quoted\t|raw\\t|97'],
  ])('%j renders %j', (source, expected) => {
    expect(render(source, data)).toBe(expected);
  });

  test('a variable declared inside a control structure ends with it', () => {
    expect(parseError('{{ if true }}{{ $x := 1 }}{{ end }}{{ $x }}')).toMatchInlineSnapshot(
      `"Template line 1:39: undefined variable "$x""`,
    );
  });
});

describe('if, else if, else', () => {
  const chain =
    '{{ if eq .R "a" }}A{{ else if eq .R "b" }}B{{ else if .Other }}O{{ else }}E{{ end }}';
  test.each([
    [{ R: 'a' }, 'A'],
    [{ R: 'b' }, 'B'],
    [{ R: 'c', Other: [1] }, 'O'],
    [{ R: 'c', Other: [] }, 'E'],
  ])('%j takes its branch', (data, expected) => {
    expect(render(chain, data)).toBe(expected);
  });

  test.each([
    ['', false],
    ['x', true],
    [0, false],
    [0.5, true],
    [null, false],
    [undefined, false],
    [[], false],
    [[0], true],
    [{}, false],
    [{ a: 1 }, true],
    [false, false],
    [true, true],
  ])('truth of %j is %s', (value, truth) => {
    expect(render('{{ if .V }}T{{ else }}F{{ end }}', { V: value })).toBe(truth ? 'T' : 'F');
  });

  test('with sets dot and has else with', () => {
    const source = '{{ with .A }}a={{ . }}{{ else with .B }}b={{ . }}{{ else }}none{{ end }}';
    expect(render(source, { A: 'x', B: 'y' })).toBe('a=x');
    expect(render(source, { B: 'y' })).toBe('b=y');
    expect(render(source, {})).toBe('none');
  });
});

describe('functions', () => {
  test.each([
    ['{{ and 1 "x" }}', 'x'],
    ['{{ and 1 0 "x" }}', '0'],
    ['{{ or "" 0 "z" }}', 'z'],
    ['{{ or "" 0 }}', '0'],
    ['{{ not "" }} {{ not 1 }}', 'true false'],
    ['{{ if and .T (not .F) }}yes{{ end }}', 'yes'],
    ['{{ and .F .Missing.X }}', 'false'],
    ['{{ eq "b" "a" "b" }} {{ eq 1 2 3 }} {{ eq .Missing "x" }}', 'true false false'],
    [
      '{{ ne "a" "b" }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1 2 }}',
      'true true true true false',
    ],
    ['{{ len "héllo" }} {{ len .L }} {{ len .M }} {{ len .Missing }}', '6 3 1 0'],
    ['{{ slice .L 1 }} {{ slice .L 1 2 }} {{ slice "hello" 1 3 }}', '[2 3] [2] el'],
    ['{{ index .L 2 }} {{ index .M "k" }}', '3 v'],
    [
      '{{ printf "%s-%d-%q-%t-%v-%.2f-%5s|%-3d|" "a" 7 "q\\n" true .L 1.5 "r" 4 }}',
      'a-7-"q\\n"-true-[1 2 3]-1.50-    r|4  |',
    ],
    ['{{ printf "%d" "x" }} {{ printf "%s %s" "a" }}', '%!d(string=x) a %!s(MISSING)'],
    // fmt's parsenum gives up past 1e6: no width or precision pads a prompt by 100 MB.
    ['{{ printf "a%100000000sb%d" "x" 3 }}', 'a%!(NOVERB)%!(EXTRA string=x, int=3)'],
    ['{{ printf "%s|%.99999999f" "x" 1.5 }}', 'x|%!(NOVERB)%!(EXTRA float64=1.5)'],
    ['{{ len (printf "%1000000s" "x") }}', '1000000'],
    ['{{ print "a" 1 2 "b" }} {{ println 1 "a" }}', 'a1 2b 1 a\n'],
    ['{{ "a" | printf "%s!" }}', 'a!'],
    ['{{ .L }} {{ .M }} {{ 1.5 }} {{ 0.000015 }}', '[1 2 3] map[k:v] 1.5 1.5e-05'],
    ['{{ json .M }} {{ json "<b>&" }}', '{"k":"v"} "\\u003cb\\u003e\\u0026"'],
    ['{{ $last := eq (len (slice .L 2)) 1 }}{{ $last }}', 'true'],
  ])('%j renders %j', (source, expected) => {
    expect(render(source, { T: true, F: false, L: [1, 2, 3], M: { k: 'v' } })).toBe(expected);
  });
});

describe('range', () => {
  test.each([
    ['{{ range .L }}{{ . }}{{ else }}empty{{ end }}', { L: [] }, 'empty'],
    ['{{ range .L }}{{ . }}{{ else }}empty{{ end }}', {}, 'empty'],
    ['{{ range $k, $v := .M }}{{ $k }}={{ $v }};{{ end }}', { M: { b: 2, a: 1 } }, 'a=1;b=2;'],
    ['{{ range 3 }}{{ . }}{{ end }}', {}, '012'],
    [
      '{{ range .L }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ if eq . 4 }}{{ break }}{{ end }}{{ . }}{{ end }}',
      { L: [1, 2, 3, 4, 5] },
      '13',
    ],
    ['{{ range .L }}{{ range $.L }}{{ break }}{{ end }}{{ . }}{{ end }}', { L: [1, 2] }, '12'],
  ])('%j with %j renders %j', (source, data, expected) => {
    expect(render(source, data)).toBe(expected);
  });

  test('a runaway range stops with an error', () => {
    const template = GoTemplate.parse('{{ range 100 }}{{ . }}{{ end }}');
    expect(errorOf(() => template.render({}, { maxSteps: 50 })).message).toMatchInlineSnapshot(
      `"Template line 1:19: template ran more than 50 steps; is a {{range}} too large?"`,
    );
  });
});

describe('parse errors name line:col and what was expected', () => {
  test.each([
    ['{{ .Prompt ', 'Template line 1:1: unclosed action; expected "}}"'],
    [
      '{{ if .A }}x',
      'Template line 1:13: unexpected end of template; expected {{end}} to close the {{if}} at 1:4',
    ],
    [
      'line one\n{{ range .L }}\n{{ end }}{{ end }}',
      'Template line 3:13: unexpected {{end}}; no {{if}}, {{with}} or {{range}} is open',
    ],
    [
      '{{ else }}',
      'Template line 1:4: unexpected {{else}}; no {{if}}, {{with}} or {{range}} is open',
    ],
    [
      '{{ if .A }}{{ else }}{{ else }}{{ end }}',
      'Template line 1:25: expected {{end}}; found a second {{else}}',
    ],
    [
      '{{ range .L }}{{ else if .A }}{{ end }}',
      'Template line 1:23: {{else if}} is only allowed in {{if}}',
    ],
    ['{{ foo .A }}', 'Template line 1:4: function "foo" not defined'],
    ['{{ "a" "b" | x }}', 'Template line 1:14: function "x" not defined'],
    [
      '{{ html .A }}',
      'Template line 1:4: function "html" is not supported by lmtab\'s template engine',
    ],
    ['{{ $y }}', 'Template line 1:4: undefined variable "$y"'],
    ['{{ $y = 1 }}', 'Template line 1:4: undefined variable "$y"; declare it first with :='],
    ['{{ break }}', 'Template line 1:4: {{break}} outside {{range}}'],
    ['{{ if }}{{ end }}', 'Template line 1:7: missing value for if'],
    [
      '{{ .A | "x" }}',
      'Template line 1:9: non executable command in pipeline stage 2; expected a function',
    ],
    [
      '{{ "abc }}',
      'Template line 1:11: unterminated quoted string; expected a closing " on the same line',
    ],
    ['{{ "\\q" }}', 'Template line 1:4: invalid escape "\\q" in "\\q"'],
    ['{{ (.A }}', 'Template line 1:8: unclosed left paren; expected ")" before "}}"'],
    ['{{ .A) }}', 'Template line 1:6: unexpected ")"; no "(" is open'],
    ['{{ .A, }}', 'Template line 1:6: unexpected "," in operand; expected a space, "|" or "}}"'],
    [
      '{{ .A.B# }}',
      'Template line 1:8: bad character U+0023 "#"; expected a space, ".", "|", ")" or "}}"',
    ],
    ['{{ 3x }}', 'Template line 1:4: bad number syntax: "3x"'],
    ['{{/* open ', 'Template line 1:1: unclosed comment; expected "*/}}"'],
    [
      '{{ /* not a comment */ }}',
      'Template line 1:4: a comment must start right after "{{" or "{{- ", as in {{/* note */}}',
    ],
    [
      '{{ define "x" }}{{ end }}',
      'Template line 1:4: {{define}} is not supported: lmtab renders one template without named sub-templates',
    ],
  ])('%j fails: %s', (source, message) => {
    expect(parseError(source)).toBe(message);
  });

  test('errors count lines and columns from the origin given', () => {
    const error = errorOf(() =>
      GoTemplate.parse('ok\n  {{ .X ', {
        name: 'Modelfile',
        line: 5,
        column: 13,
        context: 'TEMPLATE',
      }),
    );
    expect(error.message).toMatchInlineSnapshot(
      `"Modelfile line 6:3: TEMPLATE: unclosed action; expected "}}""`,
    );
    const first = errorOf(() =>
      GoTemplate.parse('{{ end }}', { name: 'Modelfile', line: 5, column: 13 }),
    );
    expect(first.message).toMatchInlineSnapshot(
      `"Modelfile line 5:16: unexpected {{end}}; no {{if}}, {{with}} or {{range}} is open"`,
    );
  });
});

describe('render errors name line:col', () => {
  test.each([
    ['{{ .A.B }}', { A: 'text' }, "Template line 1:4: can't evaluate field B in type string"],
    ['{{ .A "arg" }}', { A: 'x' }, "Template line 1:4: can't give argument to non-function .A"],
    ['{{ nil }}', {}, 'Template line 1:4: nil is not a command'],
    [
      '{{ not 1 2 }}',
      {},
      'Template line 1:4: error calling not: wrong number of args for not: want 1 got 2',
    ],
    [
      '{{ eq "a" 1 }}',
      {},
      'Template line 1:4: error calling eq: incompatible types for comparison',
    ],
    [
      '{{ eq .L .L }}',
      { L: [1] },
      'Template line 1:4: error calling eq: non-comparable type [1]: []interface {}',
    ],
    ['{{ lt true false }}', {}, 'Template line 1:4: error calling lt: invalid type for comparison'],
    ['{{ len 3 }}', {}, 'Template line 1:4: error calling len: len of type int'],
    [
      'line\n  {{ index .L 5 }}',
      { L: [1] },
      'Template line 2:6: error calling index: index out of range: 5',
    ],
    [
      '{{ slice .L 2 1 }}',
      { L: [1, 2] },
      'Template line 1:4: error calling slice: invalid slice index: 2 > 1',
    ],
    [
      '{{ printf 1 }}',
      {},
      'Template line 1:4: error calling printf: wrong type for value; expected string; got int',
    ],
    ['{{ range .S }}{{ end }}', { S: 'text' }, "Template line 1:4: range can't iterate over text"],
  ])('%j with %j fails: %s', (source, data, message) => {
    expect(renderError(source, data)).toBe(message);
  });
});

test("identifiers lists fields and variables lower-cased, like Ollama's Vars()", () => {
  const template = GoTemplate.parse(
    '{{ if .System }}{{ .System }}{{ end }}{{ range $i, $m := .Messages }}{{ $m.Content }}{{ (slice $.Messages $i).Role }}{{ end }}',
  );
  expect(template.identifiers()).toEqual([
    '$',
    '$i',
    '$m',
    'content',
    'messages',
    'role',
    'system',
  ]);
});
