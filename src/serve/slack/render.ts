/** Turning the model's markdown into Slack messages. */
import slackifyMarkdown from 'slackify-markdown';

/**
 * The longest text one message carries. Slack truncates a message's text at 40,000 characters
 * and a section block at 3,000; answers are split well below both so nothing is cut silently.
 */
export const SLACK_MESSAGE_LIMIT = 3000;

/** Markdown as Slack mrkdwn: bold, italics, links, lists and code fences in Slack's own syntax. */
export function toMrkdwn(markdown: string): string {
  return slackifyMarkdown(markdown)
    .replace(/\u200b/g, '')
    .trimEnd();
}

/**
 * Splits `text` into messages of at most `limit` characters, preferring a paragraph break, then a
 * line break, then a space. A code fence cut in two is closed at the end of one part and reopened
 * at the start of the next, so each part renders on its own.
 */
export function splitMessage(text: string, limit = SLACK_MESSAGE_LIMIT): string[] {
  if (limit < 16) throw new RangeError('a message limit under 16 characters leaves no room to split');
  const parts: string[] = [];
  let rest = text;
  let reopen = false;
  while (rest.length > 0) {
    const head: string = reopen ? '```\n' : '';
    const room = limit - head.length - 4;
    if (head.length + rest.length <= limit) {
      parts.push(head + rest);
      break;
    }
    let cut = rest.lastIndexOf('\n\n', room);
    if (cut < room / 2) cut = rest.lastIndexOf('\n', room);
    if (cut < room / 2) cut = rest.lastIndexOf(' ', room);
    if (cut < room / 2) cut = room;
    let part: string = head + rest.slice(0, cut);
    rest = rest.slice(cut).replace(/^\s+/, '');
    // an odd number of fences means this part leaves a code block open
    const open: boolean = (part.match(/```/g)?.length ?? 0) % 2 === 1;
    if (open) part += '\n```';
    reopen = open;
    parts.push(part.trimEnd());
  }
  return parts.filter((p) => p.trim() !== '');
}
