// What a strategy of the user's own may import, checked on its text before the module runs (README, "Write your own
// strategy"): the SDK and nothing else, as for the built-ins (.dependency-cruiser.mjs, strategies-import-the-sdk-only).
// A check of what the file names, not a sandbox: it keeps a strategy to the SDK by construction, the thread keeps a
// strategy that misbehaves away from the engine.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type TS from 'typescript';

/** The package name a strategy imports the SDK by (package.json `exports`). */
export const SDK_SPECIFIER = 'jup-keeper/sdk';

/** This keeper's SDK folder: src/sdk, or dist/src/sdk once compiled. */
const SDK_DIR = fileURLToPath(new URL('../../sdk/', import.meta.url));

/** One import of a strategy module that is not the SDK: what it names (or how it imports) and its line (from 1). */
export interface ForeignImport {
  /** The specifier (`node:fs`), or `import(...)` / `require(...)` when the module names it at run time. */
  name: string;
  line: number;
}

/**
 * Whether a specifier names the SDK: `jup-keeper/sdk`, a relative path into this keeper's src/sdk (a strategy kept
 * inside the repository), or zod, which the SDK re-exports as `z` and the built-ins may import.
 */
export function namesTheSdk(specifier: string, fromFile: string): boolean {
  if (specifier === SDK_SPECIFIER || specifier === 'zod' || specifier.startsWith('zod/')) return true;
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return false;
  const inside = relative(SDK_DIR, resolve(dirname(fromFile), specifier));
  return inside === '' || (!inside.startsWith('..') && !inside.startsWith(sep) && !inside.includes(`..${sep}`));
}

type Ts = typeof TS;
let typescript: Promise<Ts> | undefined;

/** The TypeScript compiler, loaded once, only when there is a strategy of the user's own to read. */
function compiler(): Promise<Ts> {
  // TypeScript is CommonJS: its API is the default export of the ES module view.
  typescript ??= import('typescript').then((m) => m.default);
  return typescript;
}

/**
 * The imports of a strategy module that are not the SDK, in the order they appear: static imports and re-exports
 * (type-only ones included, as the import rules count them), `import x = require(...)`, and every `import()` or
 * `require()` call, whatever it names: what a module loads at run time is not checked here, so it may load nothing.
 * The file is parsed, not run. Throws when it cannot be read.
 */
export async function foreignImports(file: string): Promise<ForeignImport[]> {
  const ts = await compiler();
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const found: ForeignImport[] = [];
  const at = (node: TS.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const literal = (node: TS.Node | undefined): string | undefined => (node !== undefined && ts.isStringLiteralLike(node) ? node.text : undefined);
  const visit = (node: TS.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      const name = literal(node.moduleSpecifier);
      if (name === undefined || !namesTheSdk(name, file)) found.push({ name: name ?? node.moduleSpecifier.getText(source), line: at(node) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      found.push({ name: `require(${node.moduleReference.expression.getText(source)})`, line: at(node) });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      found.push({ name: `import(${node.arguments.map((a) => a.getText(source)).join(', ')})`, line: at(node) });
    } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require') {
      found.push({ name: `require(${node.arguments.map((a) => a.getText(source)).join(', ')})`, line: at(node) });
    } else if (ts.isImportTypeNode(node)) {
      const name = ts.isLiteralTypeNode(node.argument) ? literal(node.argument.literal) : undefined;
      if (name === undefined || !namesTheSdk(name, file)) found.push({ name: name ?? node.argument.getText(source), line: at(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What is wrong with a module's imports, in words, or undefined when it imports the SDK only. */
export async function importProblem(file: string): Promise<string | undefined> {
  const found = await foreignImports(file);
  if (found.length === 0) return undefined;
  const list = found.map((f) => `${/^(import|require)\(/.test(f.name) ? f.name : JSON.stringify(f.name)} (line ${f.line})`).join(', ');
  return `imports ${list}; a strategy of your own may import only ${SDK_SPECIFIER} (and zod), and nothing at run time`;
}
