import type { OperationCall, OperationResult } from '../types.js';
import { composeImagesResponse } from './image-response.js';
import { loadImage, readFileReferences, readImageReferences } from './image-inputs.js';

/**
 * `images.generations`: deterministic PNGs from the prompt (see image-response.ts). Reference
 * images (`image_url`, `image_urls`, `file_id`, `file_ids`) are loaded and mixed into the seed.
 */
export async function generateImages(call: OperationCall): Promise<OperationResult> {
  const references = [
    ...readImageReferences(call.body.image_url, 'image_url'),
    ...readImageReferences(call.body.image_urls, 'image_urls'),
    ...readFileReferences(call.body),
  ];
  const sources = await Promise.all(references.map((reference) => loadImage(reference, call)));
  return composeImagesResponse(call, sources);
}
