/**
 * What a line typed at the full-screen view's input row means: a prompt for the model, or one of
 * the chat commands, which never reach the model. A line starting with `//` is a prompt that starts
 * with one slash. The input history is kept here too.
 */

/** The chat commands, as `/help` lists them. */
export const CHAT_COMMANDS = [
  { name: '/help', says: 'list these commands' },
  { name: '/clear', says: 'set the conversation aside; the next prompt starts a new one' },
  { name: '/model NAME', says: 'use the model NAME from the next prompt on' },
  { name: '/exit', says: 'leave the view (as Ctrl-D on an empty row)' },
  { name: '//text', says: 'send "/text" to the model as a prompt' },
] as const;

/** One line of input, understood. */
export type ChatInput =
  | { readonly kind: 'prompt'; readonly text: string }
  | { readonly kind: 'help' }
  | { readonly kind: 'clear' }
  | { readonly kind: 'exit' }
  | { readonly kind: 'model'; readonly name: string }
  /** `/model` without a name, or with more than one word. */
  | { readonly kind: 'model_usage' }
  | { readonly kind: 'unknown'; readonly command: string };

/** Reads one typed line (already trimmed and non-empty). */
export function parseChatInput(line: string): ChatInput {
  if (line.startsWith('//')) return { kind: 'prompt', text: line.slice(1) };
  if (!line.startsWith('/')) return { kind: 'prompt', text: line };
  const [command = '', ...rest] = line.split(/\s+/);
  switch (command) {
    case '/help':
      return { kind: 'help' };
    case '/clear':
      return { kind: 'clear' };
    case '/exit':
    case '/quit':
      return { kind: 'exit' };
    case '/model':
      return rest.length === 1 && rest[0] !== undefined ? { kind: 'model', name: rest[0] } : { kind: 'model_usage' };
    default:
      return { kind: 'unknown', command };
  }
}

/** The lines `/help` shows. */
export function helpLines(): string[] {
  const width = Math.max(...CHAT_COMMANDS.map((c) => c.name.length));
  return [
    'commands (never sent to the model):',
    ...CHAT_COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.says}`),
    'Up and Down at the input row recall earlier prompts.',
  ];
}

/** What an unknown command is told. */
export function unknownCommandLine(command: string): string {
  return `${command} is not a command (nothing was sent); the commands are ${CHAT_COMMANDS.map((c) => c.name.split(' ')[0])
    .filter((n) => n !== '//text')
    .join(', ')}, and //${command.slice(1)} sends the text as a prompt`;
}

/** The prompts typed so far, walked with Up and Down; what was being typed is kept while walking. */
export class InputHistory {
  readonly #entries: string[] = [];
  /** Where the walk is: `#entries.length` means the line being typed. */
  #at = 0;
  #draft = '';

  add(line: string): void {
    if (this.#entries.at(-1) !== line) this.#entries.push(line);
    this.#at = this.#entries.length;
    this.#draft = '';
  }

  /** The entry before the one shown; `current` is kept as the draft when the walk starts. */
  previous(current: string): string {
    if (this.#at === this.#entries.length) this.#draft = current;
    if (this.#at > 0) this.#at--;
    return this.#entries[this.#at] ?? current;
  }

  /** The entry after the one shown, or the draft past the newest. */
  next(current: string): string {
    if (this.#at >= this.#entries.length) return current;
    this.#at++;
    return this.#at === this.#entries.length ? this.#draft : (this.#entries[this.#at] ?? '');
  }
}
