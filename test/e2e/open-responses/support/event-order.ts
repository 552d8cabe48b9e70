/**
 * The streaming state machine of the Open Responses specification (src/pages/specification.mdx,
 * "Streaming HTTP Responses", "Items are state machines", "Items are streamable"), as checks
 * over one stream's events. Returns readable violations (empty when the order is legal):
 * - the SSE `event` field matches the body's `type`; sequence numbers strictly increase;
 * - response.created first, then (response.queued) response.in_progress, before any item;
 *   snapshots before the end are `queued` / `in_progress`;
 * - exactly one terminal event (response.completed / failed / incomplete), and it is the last;
 *   its status matches its type;
 * - output items open in order (output_index 0, 1, ...) with response.output_item.added (status
 *   in_progress) and close once with response.output_item.done; nothing touches an item before
 *   it opens or after it closes;
 * - streamable content: content_part.added, then deltas, then <content>.done, then
 *   content_part.done (reasoning summaries likewise with summary parts); the done text equals
 *   the deltas joined, and so do function call arguments;
 * - an `incomplete` item is the last one and makes the response `incomplete`;
 * - the terminal response's output equals the items as response.output_item.done closed them.
 */
import type { ParsedEvent } from './sse-events.js';

type Obj = Record<string, unknown>;

const TERMINAL = new Set(['response.completed', 'response.failed', 'response.incomplete']);
const LIFECYCLE = new Set(['response.created', 'response.queued', 'response.in_progress', ...TERMINAL]);

/** A part being streamed: its kind ('content' or 'summary'), text so far, and stage. */
interface OpenPart { text: string; stage: 'open' | 'text_done' | 'closed' }
interface OpenItem { item: Obj; parts: Map<string, OpenPart>; args: string; argsDone: boolean; closed: boolean }

/** Every violation of the streaming state machine in `events` (in order of appearance). */
export function eventOrderViolations(events: readonly ParsedEvent[]): string[] {
  const errors: string[] = [];
  const items = new Map<number, OpenItem>();
  const doneItems: Obj[] = [];
  let lastSequence = -Infinity;
  let phase = 'start' as 'start' | 'created' | 'running' | 'ended';
  events.forEach(({ event, data }, i) => {
    const type = String(data.type);
    const at = `event ${i} (${type})`;
    if (event !== '' && event !== type) errors.push(`${at}: SSE event field '${event}' does not match type`);
    const sequence = data.sequence_number;
    if (typeof sequence !== 'number' || sequence <= lastSequence) errors.push(`${at}: sequence_number ${String(sequence)} does not increase`);
    else lastSequence = sequence;
    if (phase === 'ended') errors.push(`${at}: an event after the terminal event`);
    if (i === 0 && type !== 'response.created') errors.push(`${at}: the first event must be response.created`);
    if (LIFECYCLE.has(type)) {
      const status = String((data.response as Obj | undefined)?.status);
      if (type === 'response.created') phase === 'start' ? (phase = 'created') : errors.push(`${at}: response.created twice`);
      else if (type === 'response.queued' || type === 'response.in_progress') {
        if (phase === 'start') errors.push(`${at}: before response.created`);
        phase = phase === 'created' || phase === 'running' ? 'running' : phase;
      }
      if (!TERMINAL.has(type) && !['queued', 'in_progress'].includes(status)) errors.push(`${at}: snapshot status '${status}' before the end`);
      if (TERMINAL.has(type)) {
        phase = 'ended';
        if (status !== type.slice('response.'.length)) errors.push(`${at}: status '${status}' under ${type}`);
        errors.push(...terminalViolations(at, data.response as Obj, doneItems, items));
      }
      return;
    }
    if (type === 'error') return;
    if (phase !== 'running') errors.push(`${at}: item event before response.in_progress`);
    errors.push(...itemEventViolations(at, type, data, items, doneItems));
  });
  if ((phase as string) !== 'ended') errors.push('the stream has no terminal event (response.completed / failed / incomplete)');
  return errors;
}

function itemEventViolations(at: string, type: string, data: Obj, items: Map<number, OpenItem>, doneItems: Obj[]): string[] {
  const index = Number(data.output_index);
  const open = items.get(index);
  if (type === 'response.output_item.added') {
    if (open) return [`${at}: output_index ${index} added twice`];
    if (index !== items.size) return [`${at}: output_index ${index} added out of order (expected ${items.size})`];
    const item = data.item as Obj;
    items.set(index, { item, parts: new Map(), args: '', argsDone: false, closed: false });
    return 'status' in item && item.status !== 'in_progress' ? [`${at}: an added item must be in_progress, not '${String(item.status)}'`] : [];
  }
  if (!open) return [`${at}: output_index ${index} was never added`];
  if (open.closed) return [`${at}: output_index ${index} is already done`];
  if (data.item_id !== undefined && data.item_id !== open.item.id) return [`${at}: item_id ${String(data.item_id)} is not the id of output ${index}`];
  if (type === 'response.output_item.done') return closeItem(at, open, data.item as Obj, doneItems, index);
  if (type === 'response.function_call_arguments.delta') {
    if (open.argsDone) return [`${at}: arguments delta after arguments done`];
    open.args += String(data.delta);
    return [];
  }
  if (type === 'response.function_call_arguments.done') {
    open.argsDone = true;
    return data.arguments === open.args || open.args === '' ? [] : [`${at}: arguments differ from the deltas joined`];
  }
  return partViolations(at, type, data, open);
}

/** content_part.added -> delta* -> <x>.done -> content_part.done (and summary parts alike). */
function partViolations(at: string, type: string, data: Obj, open: OpenItem): string[] {
  const summary = type.startsWith('response.reasoning_summary');
  const key = summary ? `s${String(data.summary_index)}` : `c${String(data.content_index)}`;
  const part = open.parts.get(key);
  if (type === 'response.content_part.added' || type === 'response.reasoning_summary_part.added') {
    if (part) return [`${at}: part ${key} added twice`];
    open.parts.set(key, { text: '', stage: 'open' });
    return [];
  }
  if (!part) return [`${at}: part ${key} was never added`];
  if (part.stage === 'closed') return [`${at}: part ${key} is already done`];
  if (type === 'response.output_text.annotation.added') return part.stage === 'open' ? [] : [`${at}: an annotation after the part's text was done`];
  if (type.endsWith('.delta')) {
    if (part.stage !== 'open') return [`${at}: a delta after the part's text was done`];
    part.text += String(data.delta);
    return [];
  }
  if (type === 'response.content_part.done' || type === 'response.reasoning_summary_part.done') {
    const wasDone = part.stage === 'text_done';
    part.stage = 'closed';
    const text = (data.part as Obj | undefined)?.text;
    const errors = wasDone ? [] : [`${at}: part ${key} closed before its text was done`];
    return typeof text === 'string' && text !== part.text ? [...errors, `${at}: the part's text differs from the deltas joined`] : errors;
  }
  if (type.endsWith('.done')) {
    part.stage = 'text_done';
    const text = data.text ?? data.refusal;
    return typeof text === 'string' && text !== part.text ? [`${at}: the done text differs from the deltas joined`] : [];
  }
  return [`${at}: an event the state machine does not know`];
}

function closeItem(at: string, open: OpenItem, item: Obj, doneItems: Obj[], index: number): string[] {
  open.closed = true;
  doneItems[index] = item;
  const errors = [...open.parts].filter(([, p]) => p.stage !== 'closed').map(([key]) => `${at}: item closed with part ${key} still open`);
  if (open.item.type === 'function_call' && open.args !== '' && item.arguments !== open.args) errors.push(`${at}: the done item's arguments differ from the deltas joined`);
  if ('status' in item && !['completed', 'incomplete'].includes(String(item.status))) errors.push(`${at}: a done item must be completed or incomplete, not '${String(item.status)}'`);
  return errors;
}

function terminalViolations(at: string, response: Obj, doneItems: Obj[], items: Map<number, OpenItem>): string[] {
  const errors: string[] = [];
  const output = (response.output ?? []) as Obj[];
  if (response.status !== 'failed') {
    for (const [index, open] of items) if (!open.closed) errors.push(`${at}: output ${index} was never done`);
    if (JSON.stringify(output) !== JSON.stringify(doneItems)) errors.push(`${at}: the final output differs from the items output_item.done closed`);
  }
  const incomplete = output.findIndex((item) => item.status === 'incomplete');
  if (incomplete >= 0 && incomplete !== output.length - 1) errors.push(`${at}: an incomplete item must be the last one`);
  if (incomplete >= 0 && response.status !== 'incomplete' && response.status !== 'failed') errors.push(`${at}: an incomplete item in a '${String(response.status)}' response`);
  return errors;
}
