import type { ParameterizedContext } from 'koa';
import { storeUploadedFile } from '../../calls/upload-file.js';
import type { AppState } from '../../calls/state.js';

/** POST /v1/files: the upload is stored by the call layer (src/calls/upload-file.ts); 200 with its record. */
export async function uploadFile(ctx: ParameterizedContext<AppState>): Promise<void> {
  const record = await storeUploadedFile(ctx.state.gw);
  ctx.status = 200;
  ctx.body = record;
}
