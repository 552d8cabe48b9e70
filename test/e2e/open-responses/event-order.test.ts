/** The streaming state machine checker of the ported suite catches what it is there to catch. */
import { expect } from 'chai';
import { eventOrderViolations } from './support/event-order.js';
import type { ParsedEvent } from './support/sse-events.js';

const response = (status: string, output: unknown[] = []) => ({ id: 'resp_1', status, output });
const item = (status: string, text = 'Hi') => ({ id: 'msg_1', type: 'message', role: 'assistant', status, content: status === 'in_progress' ? [] : [{ type: 'output_text', text, annotations: [] }] });

/** A legal stream of one message, as data objects (sequence numbers added in order). */
function legal(): Array<Record<string, unknown>> {
  const where = { item_id: 'msg_1', output_index: 0, content_index: 0 };
  return [
    { type: 'response.created', response: response('in_progress') },
    { type: 'response.in_progress', response: response('in_progress') },
    { type: 'response.output_item.added', output_index: 0, item: item('in_progress') },
    { type: 'response.content_part.added', ...where, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', ...where, delta: 'H' },
    { type: 'response.output_text.delta', ...where, delta: 'i' },
    { type: 'response.output_text.done', ...where, text: 'Hi' },
    { type: 'response.content_part.done', ...where, part: { type: 'output_text', text: 'Hi', annotations: [] } },
    { type: 'response.output_item.done', output_index: 0, item: item('completed') },
    { type: 'response.completed', response: response('completed', [item('completed')]) },
  ];
}

const events = (data: Array<Record<string, unknown>>): ParsedEvent[] => data.map((d, i) => ({ event: String(d.type), data: { sequence_number: i, ...d } }));

describe('open-responses suite: the streaming state machine checker', () => {
  it('accepts a legal stream', () => {
    expect(eventOrderViolations(events(legal()))).to.deep.equal([]);
  });

  it('flags a delta before its content part, a missing terminal event, a text that differs from its deltas, a repeated sequence number', () => {
    const swapped = legal();
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    expect(eventOrderViolations(events(swapped)).join('\n')).to.match(/part c0 was never added/);
    expect(eventOrderViolations(events(legal().slice(0, -1))).join('\n')).to.match(/no terminal event/);
    const wrongText = legal();
    wrongText[6] = { ...wrongText[6], text: 'Ho' };
    expect(eventOrderViolations(events(wrongText)).join('\n')).to.match(/done text differs/);
    const repeated = events(legal());
    repeated[5]!.data.sequence_number = 4;
    expect(eventOrderViolations(repeated).join('\n')).to.match(/sequence_number 4 does not increase/);
  });

  it('flags an SSE event name that is not the type, and an item event before response.in_progress', () => {
    const named = events(legal());
    named[4]!.event = 'response.output_text';
    expect(eventOrderViolations(named).join('\n')).to.match(/does not match type/);
    const early = legal();
    early.splice(1, 1);
    early.splice(8, 0, { type: 'response.in_progress', response: response('in_progress') });
    expect(eventOrderViolations(events(early)).join('\n')).to.match(/item event before response.in_progress/);
  });
});
