/**
 * The startup card: what the view is talking to, shown above the conversation. One block of text,
 * drawn opaque across the width so the transcript never shows through it.
 *
 * Its telemetry row has three states, because an agent that did not say must not look like one
 * that exports nothing: exporting (where to, and whether content is captured), off (and, when the
 * configuration enables it, which switch turned it off), and unknown.
 */
import type { HostTelemetry, RunHandle, RunRuntime } from '../host/index.js';

/** What the card says about telemetry. */
export type CardTelemetry =
  | { readonly state: 'exporting'; readonly to: string; readonly capture: boolean }
  /** `by`: the switch that turned off what the configuration enables (`--no-telemetry`, a variable). */
  | { readonly state: 'off'; readonly by?: string }
  /** The agent did not say (a peer that gave no card). */
  | { readonly state: 'unknown' };

export interface StartupCard {
  readonly identity: string;
  readonly model: string;
  /** The provider's neutral id (`anthropic`, `openai`, ...); empty when unknown. */
  readonly provider: string;
  /** The tools the model is offered, in order; undefined when the source does not say. */
  readonly tools: readonly string[] | undefined;
  /** The journaled session's run id; undefined for a conversation kept in memory. */
  readonly session: string | undefined;
  /** The session was resumed rather than started. */
  readonly resumed: boolean;
  readonly telemetry: CardTelemetry;
}

/** How many tool names the card lists before it counts the rest. */
export const CARD_TOOL_NAMES = 6;

/** Where a card row's value starts: its label is padded to this width, and a wrapped value continues under it. */
export const CARD_VALUE_COLUMN = 11;

const labelled = (label: string, value: string): string => `${label.padEnd(CARD_VALUE_COLUMN)}${value}`;

function telemetryText(t: CardTelemetry): string {
  switch (t.state) {
    case 'exporting':
      return `exporting to ${t.to}, content ${t.capture ? 'captured' : 'not captured'}`;
    case 'off':
      return t.by === undefined ? 'off' : `off: turned off by ${t.by} (the configuration enables it)`;
    case 'unknown':
      return 'unknown: the agent did not say';
    default: {
      const never: never = t;
      return never;
    }
  }
}

function toolsText(tools: readonly string[] | undefined): string {
  if (tools === undefined) return 'unknown';
  if (tools.length === 0) return 'none';
  const shown = tools.slice(0, CARD_TOOL_NAMES).join(', ');
  const rest = tools.length - CARD_TOOL_NAMES;
  return `${tools.length}: ${shown}${rest > 0 ? `, and ${rest} more` : ''}`;
}

/** The card's lines, in plain text (what search reads and copying sends). */
export function cardLines(card: StartupCard): string[] {
  const model = card.provider === '' ? card.model : `${card.model} (${card.provider})`;
  const session =
    card.session === undefined ? 'kept in memory (not journaled)' : `${card.session} (${card.resumed ? 'resumed' : 'journaled'})`;
  return [
    card.identity,
    labelled('model', model),
    labelled('tools', toolsText(card.tools)),
    labelled('session', session),
    labelled('telemetry', telemetryText(card.telemetry)),
  ];
}

/**
 * What the process's telemetry does, read off the running exporter rather than the configuration
 * (a switch or a rejected setting makes the two disagree).
 */
export function telemetryOfHost(telemetry: HostTelemetry, configEnables: boolean): CardTelemetry {
  if (telemetry.telemetry.enabled) {
    const plan = telemetry.settings.plan;
    return { state: 'exporting', to: plan?.tracesUrl ?? telemetry.settings.endpoint.value, capture: telemetry.telemetry.captureContent };
  }
  const origin = telemetry.settings.enabled.origin;
  // the origin is the switch that decided; a configuration that enables export was overridden by it
  return configEnables && origin !== 'file' && origin !== 'default' ? { state: 'off', by: origin } : { state: 'off' };
}

/**
 * The card of a run hosted in this process. `tools` names the tools when there is no turn yet to
 * say (the view waiting for its first prompt); a turn's own list wins.
 */
export function localCard(
  runtime: RunRuntime,
  handle: RunHandle | undefined,
  telemetry: HostTelemetry,
  tools?: readonly string[],
): StartupCard {
  const config = runtime.config;
  return {
    identity: config.identity,
    model: config.llm.model,
    provider: runtime.provider.capabilities().provider,
    tools: handle?.tools ?? tools,
    session: handle?.runId,
    resumed: handle?.start.kind === 'resumed',
    telemetry: telemetryOfHost(telemetry, config.telemetry.enabled),
  };
}
