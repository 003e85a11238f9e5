/**
 * Flags and arguments of an application model as a conforming `--fisk-introspect` writer prints
 * them: every field present and of its type, so a reader keeps them as decoded. For tests and
 * generated applications that build their own documents.
 */
import type { ArgModel, FlagModel } from '@fisk-ai/app';

/** A flag holding every field, each at its default unless `extra` says otherwise. */
export function flagModel(name: string, extra: Partial<FlagModel> = {}): FlagModel {
  return {
    name,
    help: '',
    short: '',
    default: [],
    envar: '',
    place_holder: '',
    required: false,
    hidden: false,
    boolean: false,
    negatable: false,
    cumulative: false,
    completions: [],
    ...extra,
  };
}

/** A positional argument holding every field, each at its default unless `extra` says otherwise. */
export function argModel(name: string, extra: Partial<ArgModel> = {}): ArgModel {
  return { name, help: '', default: [], envar: '', place_holder: '', required: false, hidden: false, cumulative: false, ...extra };
}
