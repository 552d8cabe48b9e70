import { join, resolve } from 'node:path';

/**
 * Where multipart uploads are streamed while their request runs (`files.tmp_dir`, default
 * `<files.dir>/.incoming`): one folder per request, removed when the request ends. Under
 * `files.dir` by default so the local store moves a finished upload in with a rename.
 */
export function uploadRootOf(files: { dir: string; tmp_dir?: string }): string {
  return resolve(files.tmp_dir ?? join(files.dir, '.incoming'));
}
