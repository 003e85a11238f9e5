/**
 * Fencing untrusted text as data. Text another party wrote (a memory, a retrieved document, an
 * MCP server's answer) reaches the model inside a tag that labels it, and any copy of that tag
 * inside the text is broken so the text cannot close the fence early and speak outside it.
 */

/**
 * Makes text safe to place inside a fence named `tag`: an opening or closing tag (in any letter
 * case, with optional spaces) is broken so the text cannot end the fence early and speak outside it.
 */
export function defuseFence(text: string, tag: string): string {
  const escaped = tag.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
  return text.replace(new RegExp(`<(\\s*/?\\s*${escaped})`, 'giu'), '‹$1');
}
