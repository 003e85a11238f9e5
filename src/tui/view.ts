/**
 * The Ink components of the full-screen view: the viewport, the question modal, the bottom row and
 * the status bar, drawn from one {@link Frame}. Keys go straight to the controller.
 */
import { ink } from './ink.js';
import { createElement as h, useEffect, useSyncExternalStore } from 'react';
import type { ReactElement } from 'react';
import type { ViewController } from './controller.js';
import type { Modal } from './controller.js';
import { barColours } from './status-bar.js';
import type { Row } from './transcript.js';

function toneProps(row: Row & { readonly current: boolean }): Record<string, unknown> {
  const props: Record<string, unknown> = { wrap: 'truncate' };
  if (row.current) props['inverse'] = true;
  switch (row.tone) {
    case 'dim':
      props['dimColor'] = true;
      break;
    case 'yellow':
      props['color'] = 'yellow';
      break;
    case 'red':
      props['color'] = 'red';
      break;
    case 'plain':
      break;
  }
  return props;
}

function ModalBox({ modal, width }: { readonly modal: Modal; readonly width: number }): ReactElement {
  const { Box, Text } = ink();
  const lines: ReactElement[] = [h(Text, { key: 'title', bold: true, wrap: 'truncate' }, modal.title)];
  modal.body.forEach((b, i) => lines.push(h(Text, { key: `b${i}`, wrap: 'truncate' }, `  ${b}`)));
  if (modal.text !== undefined) lines.push(h(Text, { key: 'text', wrap: 'truncate' }, `> ${modal.text}█`));
  modal.choices.forEach((c, i) => {
    const selected = i === modal.selected;
    lines.push(h(Text, { key: `c${i}`, wrap: 'truncate', inverse: selected }, `${selected ? '›' : ' '} ${i + 1}) ${c}`));
  });
  return h(Box, { flexDirection: 'column', borderStyle: 'round', borderColor: 'yellow', width, paddingX: 1 }, ...lines);
}

/**
 * A row of the startup card: one opaque text filled across the width, so nothing behind it shows
 * through (a flex box would leave its background unfilled).
 */
function cardRow(row: Row & { readonly current: boolean }, i: number, columns: number): ReactElement {
  const { Text } = ink();
  const pad = Math.max(0, columns - Array.from(row.text).length);
  // the identity heads the card
  return h(
    Text,
    { key: `r${i}`, wrap: 'truncate', backgroundColor: 'blackBright', color: 'whiteBright', bold: row.line === 0, inverse: row.current },
    `${row.text}${' '.repeat(pad)}`,
  );
}

/** The whole screen. */
export function FullScreen({ controller }: { readonly controller: ViewController }): ReactElement {
  const { Box, Text, useInput, useStdout } = ink();
  useSyncExternalStore(controller.subscribe, controller.getVersion);
  const { stdout } = useStdout();
  const columns = stdout.columns > 0 ? stdout.columns : 80;
  const rows = stdout.rows > 0 ? stdout.rows : 24;
  controller.resize(columns, rows);
  useEffect(() => {
    const onResize = (): void => controller.resize(stdout.columns, stdout.rows);
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [controller, stdout]);
  useInput((input, key) => controller.key(input, key));
  const frame = controller.frame();
  const colours = barColours(frame.state);
  const viewport: ReactElement[] = frame.rows.map((r, i) =>
    r.kind === 'card' ? cardRow(r, i, columns) : h(Text, { key: `r${i}`, ...toneProps(r) }, r.text === '' ? ' ' : r.text),
  );
  const barLeft = frame.bar;
  const pad = Math.max(0, columns - Array.from(barLeft).length - Array.from(frame.barRight).length);
  return h(
    Box,
    { flexDirection: 'column', width: columns, height: rows },
    h(Box, { flexDirection: 'column', flexGrow: 1, overflow: 'hidden' }, ...viewport),
    frame.modal === undefined ? null : h(ModalBox, { modal: frame.modal, width: columns }),
    h(Text, { wrap: 'truncate' }, frame.bottom === '' ? ' ' : frame.bottom),
    h(
      Text,
      { wrap: 'truncate', backgroundColor: colours.background, color: colours.foreground, bold: true },
      `${barLeft}${' '.repeat(pad)}${frame.barRight}`,
    ),
  );
}
