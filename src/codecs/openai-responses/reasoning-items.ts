import type { Part, ThinkingPart } from '../internal.js';
import { unpackReasoningData } from './reasoning-data.js';

/** One OpenAI reasoning item rebuilt from internal parts. */
export interface ReasoningGroup {
  summaries: string[];
  /** Encrypted content, when a redacted_thinking part closed the group. */
  encrypted?: string;
  /** The OpenAI item id packed with the encrypted content, when there was one. */
  id?: string;
  /** Signed thinking parts of the group (kept whole, see reasoning-data.ts sealThinking). */
  signed?: ThinkingPart[];
}

/**
 * Walks assistant parts and yields text / tool calls unchanged and reasoning as groups: a run of
 * thinking parts closed by at most one redacted_thinking part is one reasoning item (the inverse
 * of input-decode's decodeReasoningItem), so reasoning items round-trip.
 */
export function groupAssistantParts(parts: Part[]): Array<Part | ReasoningGroup> {
  const out: Array<Part | ReasoningGroup> = [];
  let open: ReasoningGroup | undefined;
  for (const part of parts) {
    if (part.type === 'thinking') {
      open ??= { summaries: [] };
      if (part.text.length > 0) open.summaries.push(part.text);
      if (part.signature !== undefined) (open.signed ??= []).push(part);
      if (out[out.length - 1] !== open) out.push(open);
    } else if (part.type === 'redacted_thinking') {
      // Signed thinking is sealed whole (reasoning-data.ts), so redacted data after it is an item of its own.
      const group: ReasoningGroup = open !== undefined && open.signed === undefined ? open : { summaries: [] };
      const { id, encrypted } = unpackReasoningData(part.data);
      group.encrypted = encrypted;
      if (id !== undefined) group.id = id;
      if (out[out.length - 1] !== group) out.push(group);
      open = undefined;
    } else {
      open = undefined;
      out.push(part);
    }
  }
  return out;
}

/** Type guard separating reasoning groups from parts. */
export function isReasoningGroup(value: Part | ReasoningGroup): value is ReasoningGroup {
  return !('type' in value);
}
