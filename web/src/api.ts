/** Requests to the server, each naming the tab that sends it. */
import type { Json } from './events.js';

let tab = '';

/** The id the server gave this tab's event stream. */
export function setTab(id: string): void {
  tab = id;
}

/** Posts `body` as JSON; resolves to the server's refusal message, or undefined when it was accepted. */
export async function post(path: string, body: Json): Promise<string | undefined> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tab, ...body }),
  });
  if (res.ok) return undefined;
  let message = `${res.status} ${res.statusText}`;
  try {
    const j = (await res.json()) as { error?: string };
    if (typeof j.error === 'string') message = j.error;
  } catch {
    // the status line says enough
  }
  return message;
}
