/** The provider-neutral model: conversation types and the provider contract. */
export * from './types.js';
export type { Caps, Provider, Request, Response } from './provider.js';
