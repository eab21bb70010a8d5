// The import rules `npm run deps` checks (part of `npm test`); docs/architecture.md § Layers says why they hold.
// Type-only imports count: tsPreCompilationDeps keeps the imports TypeScript erases, so a cycle made of
// `import type` alone is a cycle too (the files still cannot be read, changed or tested one without the other).
/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-file-cycle',
      comment: 'No file of src/ or strategies/ reaches itself through its imports, type-only imports included.',
      severity: 'error',
      from: { path: '^(src|strategies)/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'No folder of src/ reaches itself through its files\' imports (cli → main.ts → dashboard → cli was one).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(src|strategies)/' },
      to: { circular: true },
    },
    {
      name: 'strategies-import-the-sdk-only',
      comment: 'A built-in strategy sees what a strategy of the user\'s own sees: src/sdk, zod and its sibling strategies.',
      severity: 'error',
      from: { path: '^strategies/' },
      to: { pathNot: ['^strategies/', '^src/sdk/', '^node_modules/zod/'] },
    },
    {
      name: 'sdk-imports-zod-only',
      comment: 'src/sdk is what a strategy sees; it imports zod and nothing else.',
      severity: 'error',
      from: { path: '^src/sdk/' },
      to: { pathNot: ['^src/sdk/', '^node_modules/zod/'] },
    },
    {
      name: 'engine-imports-sdk-and-lib',
      comment: 'The engine reaches the world only through the ports it declares: of src/ it imports src/sdk and src/lib.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/', pathNot: ['^src/(engine|sdk|lib)/'] },
    },
    {
      name: 'sim-is-the-clis',
      comment: 'The simulator is a venue: of src/ only the CLI (jup-keeper sim, the in-process simulator) imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(sim|cli)/'] },
      to: { path: '^src/sim/' },
    },
    {
      name: 'wiring-is-mains',
      comment: 'src/wiring holds the composition root\'s parts: only src/main.ts (and the other wiring files) import them.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', '^src/wiring/'] },
      to: { path: '^src/wiring/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
