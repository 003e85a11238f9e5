/** The few DOM helpers every part of the page uses. */

export function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`the page lacks #${id}`);
  return e;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls !== undefined) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
