import { cacheBody } from '../compile/catalog.js';
import type { CachedBody, KeyEntry, Runtime } from '../compile/runtime.js';
import { allowsModel } from './key-spend.js';

/** Cache slot of the lists anonymous and unrestricted callers see. */
const EVERYONE = {};
// Lists serialized once per (runtime, restricted key entry or everyone, filter), not per request.
const listCache = new WeakMap<Runtime, WeakMap<object, Map<string, CachedBody>>>();

/** The models `key` may call (everyone's when undefined) whose cards list every name in `filter` exactly (SPEC 4.17). */
export function modelListBody(runtime: Runtime, key: KeyEntry | undefined, filter: string[]): CachedBody {
  let perRuntime = listCache.get(runtime);
  if (!perRuntime) listCache.set(runtime, (perRuntime = new WeakMap()));
  const slot = key ?? EVERYONE;
  let perCaller = perRuntime.get(slot);
  if (!perCaller) perRuntime.set(slot, (perCaller = new Map()));
  const id = [...new Set(filter)].sort().join(',');
  let c = perCaller.get(id);
  if (!c) {
    const data = [...runtime.models.values()]
      .filter((m) => !m.spec.hidden && !m.provider.missing && (key === undefined || allowsModel(key.modelPatterns, m.spec.id)) && filter.every((p) => cardLists(m.card, p)))
      .map((m) => m.card);
    c = cacheBody({ object: 'list', data });
    if (perCaller.size < (key === undefined ? 256 : 64)) perCaller.set(id, c);
  }
  return c;
}

/** Whether a card's `supported_parameters` names `name` exactly. */
function cardLists(card: Readonly<Record<string, unknown>>, name: string): boolean {
  const listed = card.supported_parameters;
  return Array.isArray(listed) && listed.includes(name);
}
