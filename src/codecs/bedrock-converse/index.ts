/** The AWS Bedrock Converse format as an upstream dialect (translation only; signing lives in src/providers/bedrock). */
export { bedrockConverseDialect } from './dialect.js';
export { decodeBedrockError, readErrorName, statusOfBedrockError } from './error-decode.js';
export { encodeModelLabel } from './request-encode.js';
