import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from '../../src/upstream/undici-core.js';
import { eventStreamTransform, EventStreamSplitter, type EventStreamMessage } from '../../src/upstream/event-stream.js';
import { readSseText } from '../../src/upstream/sse-readers.js';
import { dispatchUpstream } from '../../src/upstream/upstream-body.js';
import { eventMessage, exceptionMessage } from '../kit/bedrock/event-stream-frames.js';

const asText = (m: EventStreamMessage) => `event: ${String(m.headers[':event-type'] ?? m.headers[':exception-type'])}\ndata: ${Buffer.from(m.payload).toString('utf8')}\n\n`;

describe('upstream/event-stream (AWS event-stream reader)', () => {
  describe('EventStreamSplitter', () => {
    it('cuts messages at any chunk boundary and reads their headers and payload', () => {
      const bytes = Buffer.concat([eventMessage('messageStart', { role: 'assistant' }), exceptionMessage('throttlingException', { message: 'slow down' })]);
      for (let size = 1; size <= bytes.length; size += 7) {
        const splitter = new EventStreamSplitter('bedrock');
        const messages: EventStreamMessage[] = [];
        for (let at = 0; at < bytes.length; at += size) messages.push(...splitter.push(bytes.subarray(at, at + size)));
        splitter.end();
        expect(messages.map((m) => [m.headers[':message-type'], m.headers[':event-type'] ?? m.headers[':exception-type'], JSON.parse(Buffer.from(m.payload).toString())]))
          .to.deep.equal([['event', 'messageStart', { role: 'assistant' }], ['exception', 'throttlingException', { message: 'slow down' }]]);
      }
    });

    it('refuses a message whose CRC does not match (a flipped payload byte) with 502 invalid_upstream_response', () => {
      const bytes = eventMessage('contentBlockDelta', { delta: { text: 'hello' } });
      bytes[bytes.length - 8] ^= 0x01;
      expect(() => new EventStreamSplitter('bedrock').push(bytes)).to.throw(/checksum/i).with.property('code', 'invalid_upstream_response');
    });

    it('refuses a corrupt prelude (its own CRC) and a stream that ends inside a message', () => {
      const bytes = eventMessage('metadata', { usage: {} });
      const corrupt = Buffer.from(bytes);
      corrupt[5] ^= 0x01;
      expect(() => new EventStreamSplitter('bedrock').push(corrupt)).to.throw().with.property('status', 502);
      const splitter = new EventStreamSplitter('bedrock');
      expect(splitter.push(bytes.subarray(0, 20))).to.deep.equal([]);
      expect(() => splitter.end()).to.throw(/ended inside a message/);
    });
  });

  describe('a body read through eventStreamTransform', () => {
    let server: Server | undefined;
    let agent: Agent | undefined;
    afterEach(async () => {
      await agent?.destroy().catch(() => undefined);
      server?.closeAllConnections();
      if (server) await new Promise((resolve) => server!.close(resolve));
      server = undefined;
    });

    async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void) {
      server = createServer(handler).listen(0, '127.0.0.1');
      await once(server, 'listening');
      agent = new Agent();
      const head = await dispatchUpstream(agent, { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, path: '/', method: 'GET' });
      head.body.transformChunks(eventStreamTransform('bedrock', asText));
      return head;
    }

    it('is read by the SSE reader as text events, whatever the network chunking', async () => {
      const head = await serve(async (_req, res) => {
        res.setHeader('content-type', 'application/vnd.amazon.eventstream');
        const bytes = Buffer.concat([eventMessage('messageStart', { role: 'assistant' }), eventMessage('messageStop', { stopReason: 'end_turn' })]);
        for (let at = 0; at < bytes.length; at += 13) {
          res.write(bytes.subarray(at, at + 13));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        res.end();
      });
      let text = '';
      for await (const [batch] of readSseText(head.body)) text += batch;
      expect(text).to.equal('event: messageStart\ndata: {"role":"assistant"}\n\nevent: messageStop\ndata: {"stopReason":"end_turn"}\n\n');
    });

    it('fails the read after the good messages when a later message is corrupt', async () => {
      const head = await serve((_req, res) => {
        const bad = eventMessage('contentBlockDelta', { delta: { text: 'x' } });
        bad[bad.length - 1] ^= 0xff;
        res.end(Buffer.concat([eventMessage('messageStart', { role: 'assistant' }), bad]));
      });
      let text = '';
      let failure: unknown;
      try {
        for await (const [batch] of readSseText(head.body)) text += batch;
      } catch (e) {
        failure = e;
      }
      expect(text).to.equal('event: messageStart\ndata: {"role":"assistant"}\n\n');
      expect(failure).to.have.property('code', 'invalid_upstream_response');
    });
  });
});
