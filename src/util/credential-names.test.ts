import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_CREDENTIAL_ENV_NAMES,
  OPENAI_CREDENTIAL_ENV_NAMES,
  OTLP_CREDENTIAL_ENV_NAMES,
  SLACK_CREDENTIAL_ENV_NAMES,
  STANDING_CREDENTIAL_ENV_NAMES,
} from './credential-names.js';

describe('STANDING_CREDENTIAL_ENV_NAMES', () => {
  it('withholds every provider, OTLP and Slack credential variable, each once', () => {
    for (const list of [
      ANTHROPIC_CREDENTIAL_ENV_NAMES,
      OPENAI_CREDENTIAL_ENV_NAMES,
      OTLP_CREDENTIAL_ENV_NAMES,
      SLACK_CREDENTIAL_ENV_NAMES,
    ]) {
      for (const name of list) expect(STANDING_CREDENTIAL_ENV_NAMES).toContain(name);
    }
    expect(new Set(STANDING_CREDENTIAL_ENV_NAMES).size).toBe(STANDING_CREDENTIAL_ENV_NAMES.length);
  });

  it('covers the headers and client key of every OTLP signal', () => {
    for (const signal of ['', 'TRACES_', 'METRICS_', 'LOGS_']) {
      expect(OTLP_CREDENTIAL_ENV_NAMES).toContain(`OTEL_EXPORTER_OTLP_${signal}HEADERS`);
      expect(OTLP_CREDENTIAL_ENV_NAMES).toContain(`OTEL_EXPORTER_OTLP_${signal}CLIENT_KEY`);
    }
  });
});
