import { expect } from 'chai';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { makeMp3Like, makeWav } from '../../kit/providers/media-bytes.js';
import { lastRequest, startProviderRig, type ProviderRig } from '../providers/setup.js';

/** Every file (not folder) under a directory, recursively; [] when it does not exist. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Everything under the upload temp root (files and per-request folders). */
async function listIncoming(filesDir: string): Promise<string[]> {
  return readdir(join(filesDir, '.incoming'), { recursive: true }).catch(() => []);
}

/** Polls until `check` holds or 3 s pass (the server finishes a refused request asynchronously). */
async function waitFor(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 150; i += 1) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

function form(parts: Array<[string, string | Blob, string?]>): FormData {
  const fd = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') fd.append(name, value);
    else fd.append(name, value, filename);
  }
  return fd;
}

describe('e2e/files/multipart-uploads', () => {
  let rig: ProviderRig;
  let filesDir: string;
  let client: OpenAI;
  const wav = makeWav(3200);

  before(async () => {
    filesDir = await mkdtemp(join(tmpdir(), 'gw-multipart-'));
    rig = await startProviderRig({ GATEWAY_FILES_DIR: filesDir });
    client = new OpenAI({ apiKey: rig.gw.key, baseURL: `${rig.gw.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await rig.close();
    await rm(filesDir, { recursive: true, force: true });
  });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  const postForm = async (path: string, body: FormData) => {
    const res = await fetch(`${rig.gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${rig.gw.key}` }, body });
    return { status: res.status, json: await res.json() as { error?: { code?: string; type?: string; message?: string } } & Record<string, unknown> };
  };

  describe('POST /v1/audio/transcriptions as multipart (issue 10.5)', () => {
    it('takes the official SDK upload and sends the file and fields to OpenAI unchanged', async () => {
      const result = await client.audio.transcriptions.create({
        file: await toFile(wav, 'meeting.wav', { type: 'audio/wav' }),
        model: 'openai/gpt-transcribe',
        language: 'en',
        prompt: 'names: Ada',
        temperature: 0.2,
      });
      const upstream = lastRequest(rig.openai, '/v1/audio/transcriptions');
      expect(upstream.form!.fields).to.deep.equal({ model: ['gpt-transcribe'], language: ['en'], prompt: ['names: Ada'], temperature: ['0.2'], response_format: ['json'] });
      const file = upstream.form!.files[0]!;
      expect(file.field).to.equal('file');
      expect(file.filename).to.equal('meeting.wav');
      expect(file.bytes.equals(wav)).to.equal(true);
      expect(result.text).to.equal(`heard ${wav.length} bytes of meeting.wav`);
      expect(rig.openai.findings.at(-1)!.errors).to.deep.equal([]);
    });

    it('passes verbose_json to whisper-1 and keeps its segments', async () => {
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'openai/whisper-1'], ['response_format', 'verbose_json'], ['file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'a.wav']]));
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.openai, '/v1/audio/transcriptions').form!.fields.response_format).to.deep.equal(['verbose_json']);
    });

    it('reads `key[]` parts as arrays: timestamp_granularities reaches whisper-1, and is dropped (and named) for a model without it', async () => {
      await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'openai/whisper-1', response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'] });
      const upstream = lastRequest(rig.openai, '/v1/audio/transcriptions');
      expect(upstream.form!.fields['timestamp_granularities[]']).to.deep.equal(['word', 'segment']);
      expect(rig.openai.findings.at(-1)!.errors).to.deep.equal([]);
      const res = await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'openai/gpt-transcribe', timestamp_granularities: ['word'] }).withResponse();
      expect(res.response.headers.get('x-gateway-dropped-params')).to.equal('timestamp_granularities');
      expect(lastRequest(rig.openai, '/v1/audio/transcriptions').form!.fields).to.not.have.property('timestamp_granularities[]');
    });

    it('refuses stream: true with a 400 naming stream (the answer is one JSON object)', async () => {
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1'], ['stream', 'true'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]));
      expect(res.status).to.equal(400);
      expect(res.json.error!.message).to.contain('stream');
    });

    for (const [model, expected] of [
      ['openai/gpt-transcribe', `heard ${wav.length} bytes of a.wav`],
      ['elevenlabs/scribe-v1', `scribed ${wav.length} bytes`],
      ['sandbox/transcribe-1', /^Sandbox transcript of \d+\.\d\d seconds of audio$/],
    ] as const) {
      it(`answers response_format text as the SDK expects it (a string) from ${model}, still billed`, async () => {
        const res = await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model, response_format: 'text' }).withResponse();
        expect(res.data).to.be.a('string');
        if (typeof expected === 'string') expect(res.data).to.equal(expected);
        else expect(res.data).to.match(expected);
        expect(res.response.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
        expect(Number(res.response.headers.get('x-gateway-cost'))).to.be.greaterThan(0);
        if (model.startsWith('openai/')) expect(lastRequest(rig.openai, '/v1/audio/transcriptions').form!.fields.response_format).to.deep.equal(['json']);
      });
    }

    it('answers response_format text to a JSON request too', async () => {
      const res = await rig.post('/v1/audio/transcriptions', { model: 'sandbox/transcribe-1', audio_base64: wav.toString('base64'), response_format: 'text' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
      expect(res.bytes.toString('utf8')).to.match(/^Sandbox transcript of/);
    });

    it('names a generic upload after its bytes so the upstream can decode it', async () => {
      const mp3 = makeMp3Like();
      await client.audio.transcriptions.create({ file: await toFile(mp3, 'blob'), model: 'openai/gpt-transcribe' });
      const file = lastRequest(rig.openai, '/v1/audio/transcriptions').form!.files[0]!;
      expect(file.filename).to.match(/\.mp3$/);
      expect(file.bytes.equals(mp3)).to.equal(true);
    });

    it('sends the multipart file to ElevenLabs Scribe', async () => {
      const result = await client.audio.transcriptions.create({ file: await toFile(wav, 'talk.wav'), model: 'elevenlabs/scribe-v1', language: 'de' });
      const upstream = lastRequest(rig.elevenlabs, '/v1/speech-to-text');
      expect(upstream.form!.fields).to.deep.equal({ model_id: ['scribe_v1'], language_code: ['de'] });
      expect(upstream.form!.files[0]!.bytes.equals(wav)).to.equal(true);
      expect(result.text).to.equal(`scribed ${wav.length} bytes`);
    });

    it('transcribes a multipart upload in the sandbox, billed by its duration', async () => {
      const res = await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'sandbox/transcribe-1', language: 'fr' }).withResponse();
      expect(res.data.text).to.match(/^Sandbox transcript of \d+\.\d\d seconds of audio$/);
      expect((res.data as unknown as { language: string }).language).to.equal('fr');
      expect(Number(res.response.headers.get('x-gateway-cost'))).to.be.greaterThan(0);
    });

    it('estimates a multipart upload by its audio before the call: a budget below its duration is refused', async () => {
      // The worst case is read from the file part's WAV header (billing reads the upload through
      // the call pipeline); without it the estimate would be 0 s and any budget would pass.
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1'], ['max_budget_usd', '0.0000001'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]));
      expect(res.status, JSON.stringify(res.json)).to.equal(400);
      expect(res.json.error).to.include({ code: 'budget_exceeded' });
    });

    it('coerces numeric text fields and still checks them', async () => {
      const ok = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1'], ['max_budget_usd', '1'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]));
      expect(ok.status, JSON.stringify(ok.json)).to.equal(200);
      const bad = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1'], ['temperature', 'hot'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]));
      expect(bad.status).to.equal(400);
      expect(bad.json.error!.code).to.equal('validation_failed');
      expect(bad.json.error!.message).to.contain('temperature');
    });

    it('answers 400 naming the file when the file part is missing', async () => {
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1']]));
      expect(res.status).to.equal(400);
      expect(res.json.error!.message).to.contain('file');
    });

    it('answers 400 too_many_files (never 413) for two file parts', async () => {
      const before = rig.openai.requests.length;
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'openai/gpt-transcribe'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav'], ['file', new Blob([new Uint8Array(wav)]), 'b.wav']]));
      expect(res.status).to.equal(400);
      expect(res.json.error).to.include({ type: 'invalid_request_error', code: 'too_many_files' });
      expect(rig.openai.requests.length).to.equal(before);
    });

    it('answers 400 for a file in a part with another name', async () => {
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1'], ['audio', new Blob([new Uint8Array(wav)]), 'a.wav']]));
      expect(res.status).to.equal(400);
      expect(res.json.error).to.include({ code: 'invalid_multipart' });
      expect(res.json.error!.message).to.contain("'audio'");
    });

    it('answers 400 invalid_multipart when file is a text field', async () => {
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1'], ['file', '/home/me/a.wav']]));
      expect(res.status).to.equal(400);
      expect(res.json.error).to.include({ code: 'invalid_multipart' });
      expect(res.json.error!.message).to.contain('file part');
    });

    it('answers 400 empty_file for an empty file part', async () => {
      const res = await postForm('/v1/audio/transcriptions', form([['model', 'sandbox/transcribe-1'], ['file', new Blob([]), 'a.wav']]));
      expect(res.status).to.equal(400);
      expect(res.json.error!.code).to.equal('empty_file');
    });

    it('still accepts JSON on the same route', async () => {
      const res = await rig.post('/v1/audio/transcriptions', { model: 'sandbox/transcribe-1', audio_base64: wav.toString('base64') });
      expect(res.status).to.equal(200);
    });
  });

  describe('base64 fields are decoded strictly (issue 10.5)', () => {
    const cases: Array<[string, string]> = [
      ['a dangling character (length % 4 == 1)', 'QUJDR'],
      ['padding on a wrong length', 'QUJ=='],
      ['a character outside the alphabet', 'QU*D'],
      ['padding in the middle', 'QQ==QUJD'],
    ];
    for (const [label, text] of cases) {
      it(`refuses content_base64 with ${label} on /v1/files`, async () => {
        const res = await rig.post('/v1/files', { content_base64: text });
        expect(res.status).to.equal(400);
        expect((res.json.error as Record<string, unknown>).code).to.be.oneOf(['invalid_base64', 'validation_failed']);
      });
      it(`refuses audio_base64 with ${label} on /v1/audio/transcriptions (mapped and sandbox)`, async () => {
        for (const model of ['openai/gpt-transcribe', 'sandbox/transcribe-1']) {
          const res = await rig.post('/v1/audio/transcriptions', { model, audio_base64: text });
          expect(res.status, model).to.equal(400);
          expect((res.json.error as Record<string, unknown>).code).to.be.oneOf(['invalid_base64', 'validation_failed']);
        }
      });
    }

    it('refuses an image data URL with a truncated base64 payload', async () => {
      const res = await rig.post('/v1/images/edits', { model: 'sandbox/image-1', prompt: 'x', image: 'data:image/png;base64,iVBORw0KGgoA' });
      expect(res.status).to.equal(400);
    });

    it('stores unpadded and padded base64 alike, byte for byte', async () => {
      const bytes = Buffer.from('hello!!');
      const unpadded = bytes.toString('base64').replace(/=+$/, '');
      const a = await rig.post('/v1/files', { content_base64: unpadded });
      const b = await rig.post('/v1/files', { content_base64: bytes.toString('base64') });
      expect(a.status).to.equal(200);
      expect(a.json.bytes).to.equal(bytes.length);
      expect(b.json.bytes).to.equal(bytes.length);
    });
  });

  describe('refused uploads leave nothing on disk (issue 10.14)', () => {
    const refusals: Array<[string, () => FormData, number]> = [
      ['two file parts', () => form([['model', 'sandbox/transcribe-1'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav'], ['file', new Blob([new Uint8Array(wav)]), 'b.wav']]), 400],
      ['a failed validation', () => form([['model', 'sandbox/transcribe-1'], ['temperature', '9'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]), 400],
      ['an unknown model', () => form([['model', 'nobody/none'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]), 400],
      ['audio the sandbox cannot read', () => form([['model', 'sandbox/transcribe-1'], ['file', new Blob([Buffer.alloc(64, 1)]), 'a.wav']]), 400],
      ['an upload to an unknown provider', () => form([['provider', 'nobody'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]), 400],
    ];
    for (const [label, build, status] of refusals) {
      it(`removes the temp file of ${label}`, async () => {
        const path = label.includes('provider') ? '/v1/files' : '/v1/audio/transcriptions';
        const res = await postForm(path, build());
        expect(res.status, JSON.stringify(res.json)).to.equal(status);
        expect(await waitFor(async () => (await listIncoming(filesDir)).length === 0)).to.equal(true);
      });
    }

    it('removes the temp files of successful calls too', async () => {
      await client.audio.transcriptions.create({ file: await toFile(wav, 'a.wav'), model: 'sandbox/transcribe-1' });
      expect(await listIncoming(filesDir)).to.deep.equal([]);
    });

    it('removes the partial file of a client that aborts mid-upload', async () => {
      const url = new URL(rig.gw.url);
      const boundary = 'gwtestboundary';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nsandbox/transcribe-1\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`;
      const socket = connect(Number(url.port), url.hostname);
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(`POST /v1/audio/transcriptions HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${rig.gw.key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 10000000\r\n\r\n`);
      socket.write(head);
      socket.write(Buffer.alloc(256 * 1024, 7));
      // The server has started writing the part to disk before the client goes away.
      expect(await waitFor(async () => (await listFiles(join(filesDir, '.incoming'))).length > 0)).to.equal(true);
      socket.destroy();
      expect(await waitFor(async () => (await listIncoming(filesDir)).length === 0)).to.equal(true);
    });

    it('refuses a file part over files.max_bytes with 413 and removes it', async () => {
      const big = await startProviderRig({ GATEWAY_FILES_DIR: filesDir, GATEWAY_FILES_MAX_BYTES: '1000' }).catch(() => undefined);
      if (!big) throw new Error('rig did not start');
      try {
        const res = await fetch(`${big.gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${big.gw.key}` }, body: form([['model', 'sandbox/transcribe-1'], ['file', new Blob([new Uint8Array(wav)]), 'a.wav']]) });
        expect(res.status).to.equal(413);
        expect(await waitFor(async () => (await listIncoming(filesDir)).length === 0)).to.equal(true);
      } finally {
        await big.close();
      }
    });
  });
});
