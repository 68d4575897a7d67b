import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** loopgate's version, from its package.json. */
export const VERSION: string = (JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;
