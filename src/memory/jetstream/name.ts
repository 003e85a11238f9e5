/** The registered name of the JetStream KV backend. */
export const JETSTREAM_BACKEND = 'jetstream';
