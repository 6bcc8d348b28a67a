// Logs go to stderr so stdout stays clean for the MCP protocol and for --json output.
import { pino, type Logger } from 'pino';
import { redactSecrets } from './core/redaction.ts';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: undefined,
      // Fields that hold credentials, wherever they appear.
      redact: {
        paths: ['*.authorization', '*.Authorization', '*["x-api-key"]', '*["x-llm-key"]', 'key', 'secret'],
        censor: '[redacted]',
      },
      // Any other text may quote one (a provider's error message echoing its key): the written line is redacted too.
      hooks: { streamWrite: (line) => redactSecrets(line) },
    },
    pino.destination(2),
  );
}
