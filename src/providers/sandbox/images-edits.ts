import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { composeImagesResponse } from './image-response.js';
import { loadImage, readFileReferences, readImageReferences } from './image-inputs.js';

/** Same bound as SPEC 4.6 `images` (1 to 5), plus the single `image`. */
const MAX_SOURCES = 6;

/**
 * `images.edits`: loads the source images of `image` / `images` (SPEC 4.6 forms; data: URLs,
 * http(s) URLs via fetchMedia, or `{file_id}` / `file_id` uploads) and draws deterministic PNGs
 * seeded by the prompt and the source bytes' hash, at the first source's size unless asked.
 */
export async function editImages(call: OperationCall): Promise<OperationResult> {
  const references = [
    ...readImageReferences(call.body.image, 'image'),
    ...readImageReferences(call.body.images, 'images'),
    ...readFileReferences(call.body),
  ];
  if (references.length === 0) throw errors.invalidRequest("Send the image to edit in 'image' or 'images'.", 'missing_image');
  if (references.length > MAX_SOURCES) throw errors.invalidRequest(`At most ${MAX_SOURCES} source images.`, 'too_many_images', { max: MAX_SOURCES });
  const sources = await Promise.all(references.map((reference) => loadImage(reference, call)));
  return composeImagesResponse(call, sources);
}
