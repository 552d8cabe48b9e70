import { pino, type Logger } from 'pino';

/**
 * The process logger. Keys are never logged: headers that carry them are redacted, and
 * request logs carry only method, path, status, route and timing.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.apiKey', '*.api_key'], censor: '[redacted]' },
  });
}
