/**
 * A config (or a file it imports) written as an ES module in a project whose
 * package.json says `"type": "commonjs"` — what `npm init -y` writes. Node
 * loads such a `.ts` or `.js` file as CommonJS and fails on its first
 * `import`; the fix is the project's, and this names it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const ESM_IN_COMMONJS = /Cannot use import statement outside a module|Unexpected token 'export'/;

/** Node's own warning for it, which loopgate's one line replaces. */
export const ESM_IN_COMMONJS_WARNING = 'Failed to load the ES module';

/** The package.json that made `file` CommonJS, when `error` is Node refusing its ES module syntax; else undefined. */
export function commonjsPackageOf(error: unknown, file: string): string | undefined {
  if (!(error instanceof SyntaxError) || !ESM_IN_COMMONJS.test(error.message)) return undefined;
  return commonjsPackageFor(file);
}

/** The package.json that makes Node load `file` as CommonJS, if one does. */
function commonjsPackageFor(file: string): string | undefined {
  if (!/\.(ts|tsx|js)$/.test(file)) return undefined; // .mts and .mjs are ES modules whatever the package says
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      // The nearest package.json decides; one without "type" lets Node detect ES module syntax.
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown }).type === 'commonjs' ? pkg : undefined;
      } catch {
        return undefined;
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * An ES module (an `.mts` config) importing a name from a `.ts` or `.js` file
 * that Node loads as CommonJS: Node refuses the import at link time ("does not
 * provide an export named …") before the file runs, so the file's own syntax
 * error never comes. The imported file and the package.json that made it
 * CommonJS, when it is written as an ES module; else undefined.
 */
export function commonjsImportOf(error: unknown, importer: string | undefined): { file: string; pkg: string } | undefined {
  if (!(error instanceof SyntaxError) || importer === undefined) return undefined;
  const specifier = /^The requested module '(\.{1,2}\/[^']+)' does not provide an export named /.exec(error.message)?.[1];
  if (specifier === undefined) return undefined;
  const file = resolve(dirname(importer), specifier);
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  if (!/^\s*(export\s|import\s[^(])/m.test(source)) return undefined; // a real CommonJS module lacking the export: Node's line says it
  const pkg = commonjsPackageFor(file);
  return pkg ? { file, pkg } : undefined;
}

/** The one line: what the file is, what the package says, the two ways out. */
export function commonjsMessage(file: string, pkg: string): string {
  const name = file.replace(/^.*[\\/]/, '');
  const esm = name.replace(/\.(ts|tsx)$/, '.mts').replace(/\.js$/, '.mjs');
  return `it is an ES module (import/export), but ${pkg} says "type": "commonjs"; set "type": "module" there, or name the file ${esm}`;
}
