import type { ArgNode, PipeNode, TemplateNode } from './go-template-ast.js';
import { GoTemplate } from './go-template.js';

/** One message of the conversation a prompt is rendered from; plain text (images go elsewhere). */
export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Options of {@link renderPrompt}. */
export interface RenderPromptOptions {
  /** The request's messages, in order. */
  messages: readonly PromptMessage[];
  /** The Modelfile's SYSTEM, unless the request's first message is a system one. Default none. */
  system?: string;
  /** The Modelfile's MESSAGE directives, put before the request's conversation. Default none. */
  history?: readonly PromptMessage[];
  /** Clock for the templates' `currentDate` and `yesterdayDate`; default `() => new Date()`. */
  now?: () => Date;
}

const thinking = { Think: false, ThinkLevel: '', IsThinkSet: false };

/** Renders a chat prompt from a Go TEMPLATE as Ollama's chat does (see the notes inside). */
export function renderPrompt(template: string | GoTemplate, options: RenderPromptOptions): string {
  const parsed = typeof template === 'string' ? GoTemplate.parse(template) : template;
  const renderOptions = options.now === undefined ? {} : { now: options.now };
  const { system, messages } = collate(conversation(options));
  const names = parsed.identifiers();

  // ollama/ollama template/template.go Execute: a template that uses .Messages renders once with
  // every message, fields as Ollama's templateMessage (tool fields stay empty: lmtab passes text).
  if (names.includes('messages')) {
    return parsed.render(
      {
        System: system,
        Messages: messages.map((m) => ({
          Role: m.role,
          Content: m.content,
          Thinking: '',
          Images: null,
          ToolCalls: null,
          ToolName: '',
          ToolCallID: '',
        })),
        Tools: null,
        Response: '',
        ...thinking,
      },
      renderOptions,
    );
  }

  // Older .System/.Prompt/.Response templates render turn by turn, and the last turn stops at
  // .Response so the prompt ends where the reply starts. Ollama's Parse appends {{ .Response }}
  // to templates that never mention it.
  const full = names.includes('response')
    ? parsed
    : parsed.withRoot([...parsed.root, responseAction(parsed.source.length)]);
  const turn = { system: '', prompt: '', response: '' };
  const parts: string[] = [];
  const flush = (): void => {
    parts.push(renderTurn(full, turn));
    Object.assign(turn, { system: '', prompt: '', response: '' });
  };
  // The system lands in the turn after it; a turn is flushed when the next one begins.
  for (const m of messages) {
    if (m.role === 'system') {
      if (turn.prompt !== '' || turn.response !== '') flush();
      turn.system = m.content;
    } else if (m.role === 'user') {
      if (turn.response !== '') flush();
      turn.prompt = m.content;
    } else {
      turn.response = m.content;
    }
  }
  parts.push(renderTurn(full.withRoot(cutAfterResponse(full.root)), turn));
  return parts.join('');

  function renderTurn(t: GoTemplate, values: typeof turn): string {
    const data = { System: values.system, Prompt: values.prompt, Response: values.response };
    return t.render({ ...data, ...thinking }, renderOptions);
  }
}

/** The request's messages behind the Modelfile's SYSTEM and MESSAGE history. */
function conversation(options: RenderPromptOptions): PromptMessage[] {
  const history = options.history ?? [];
  const [first, ...rest] = options.messages;
  // Ollama puts a request's leading system message after the history; lmtab keeps it first.
  if (first?.role === 'system') return [first, ...history, ...rest];
  const system = options.system ?? '';
  const head: PromptMessage[] = system === '' ? [] : [{ role: 'system', content: system }];
  return [...head, ...history, ...options.messages];
}

/** Ollama's collate: same-role neighbours merge; `.System` joins every system message. */
function collate(messages: readonly PromptMessage[]): {
  system: string;
  messages: PromptMessage[];
} {
  const systems: string[] = [];
  const merged: PromptMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system') systems.push(m.content);
    const last = merged.at(-1);
    if (last !== undefined && last.role === m.role) last.content += `\n\n${m.content}`;
    else merged.push({ role: m.role, content: m.content });
  }
  return { system: systems.join('\n\n'), messages: merged };
}

function responseAction(pos: number): TemplateNode {
  const field: ArgNode = { type: 'field', pos, names: ['Response'] };
  const pipe: PipeNode = {
    type: 'pipe',
    pos,
    decl: [],
    isAssign: false,
    cmds: [{ pos, args: [field] }],
  };
  return { type: 'action', pos, pipe };
}

/**
 * Ollama's deleteNode: keeps the tree up to and including the first `.Response` field and drops
 * everything after it, walking in Ollama's order (control conditions are not searched).
 */
function cutAfterResponse(root: readonly TemplateNode[]): TemplateNode[] {
  let cut = false;
  const list = (nodes: readonly TemplateNode[]): TemplateNode[] | undefined => {
    if (cut) return undefined;
    const kept: TemplateNode[] = [];
    for (const n of nodes) {
      const k = cut ? undefined : node(n);
      if (k !== undefined) kept.push(k);
    }
    return kept;
  };
  const node = (n: TemplateNode): TemplateNode | undefined => {
    switch (n.type) {
      case 'action': {
        const pipe = pipeline(n.pipe);
        return pipe === undefined ? undefined : { ...n, pipe };
      }
      case 'if':
      case 'with':
      case 'range': {
        const body = list(n.list) ?? [];
        const elseList = n.elseList === undefined ? undefined : list(n.elseList);
        return { ...n, list: body, ...(elseList === undefined ? {} : { elseList }) };
      }
      default:
        return n;
    }
  };
  const pipeline = (p: PipeNode): PipeNode | undefined => {
    if (cut) return undefined;
    const cmds = [];
    for (const c of p.cmds) {
      const args = c.args.map(arg).filter((a) => a !== undefined);
      // As in Ollama, a command left without arguments drops the whole pipeline.
      if (args.length === 0) return undefined;
      cmds.push({ ...c, args });
    }
    return { ...p, cmds };
  };
  const arg = (a: ArgNode): ArgNode | undefined => {
    if (a.type === 'field' && a.names.includes('Response')) {
      cut = true;
      return a;
    }
    if (cut) return undefined;
    return a.type === 'pipe' ? pipeline(a) : a;
  };
  return list(root) ?? [];
}
