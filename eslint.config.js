import path from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const KIT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'functions', 'inbox');

/**
 * The layers of the kit (functions/inbox), lowest first. A part (a folder, or a file at the kit's
 * root) imports its own files and the parts of lower layers only: never a part beside it or above
 * it, and never an entry file (index.ts, internal.ts, a part's index.ts), which are the doors for
 * code outside the kit. A new part gets its place here before it can import anything.
 */
const inboxLayers = [
  ['errors.ts', 'contract.ts', 'aws-limits.ts', 'with-defaults.ts', 'retry.ts', 'aws-errors.ts', 'permanent-error.ts'],
  ['sql'],
  ['database', 'transient.ts'],
  // The cleanup's and relays' last runs: below both, which write them.
  ['kit-run.ts'],
  ['claim', 'pg', 'data-api', 'migrations', 'cleanup', 'outcome.ts', 'statement-context.ts', 'telemetry.ts'],
  ['metric-log.ts', 'trace'],
  ['producer'],
  ['outbox'],
  ['options.ts'],
  ['pipeline'],
  ['sqs', 'kafka'],
  // The operator's tools read a message's key as its source does (a DLQ redrive keeps it).
  ['operator'],
  ['middleware'],
  ['index.ts', 'internal.ts'],
];

/** A kit file's part and whether it is an entry file, or undefined outside the kit. */
function kitPlace(file) {
  const inKit = path.relative(KIT, file);
  if (inKit.startsWith('..') || path.isAbsolute(inKit)) return undefined;
  const [part, ...rest] = inKit.split(path.sep);
  const layer = inboxLayers.findIndex((parts) => parts.includes(part));
  return { part, layer, entry: rest.length === 0 ? ['index.ts', 'internal.ts'].includes(part) : rest.join('/') === 'index.ts' };
}

const layering = {
  rules: {
    'inbox-layers': {
      meta: {
        type: 'problem',
        schema: [],
        messages: {
          unplaced: 'functions/inbox/{{part}} has no layer: give it its place in inboxLayers (eslint.config.js).',
          entry: '{{target}} is an entry file, a door for code outside the kit: import the file that defines the name.',
          upward: '{{part}} may not import {{target}}: {{targetPart}} is {{where}} in the kit\'s layers (inboxLayers, eslint.config.js); move the shared name down to the lower part.',
        },
      },
      create(context) {
        const from = kitPlace(context.filename);
        if (!from) return {};
        if (from.layer < 0) return { Program: (node) => context.report({ node, messageId: 'unplaced', data: { part: from.part } }) };
        const check = (node) => {
          const spec = node.source?.type === 'Literal' ? node.source.value : undefined;
          if (typeof spec !== 'string' || !spec.startsWith('.')) return;
          const resolved = path.resolve(path.dirname(context.filename), spec.replace(/\.js$/, '.ts'));
          const to = kitPlace(resolved);
          if (!to) return;
          const target = path.relative(KIT, resolved).split(path.sep).join('/');
          if (to.entry && !from.entry) context.report({ node: node.source, messageId: 'entry', data: { target } });
          else if (to.part !== from.part && to.layer >= from.layer) {
            context.report({ node: node.source, messageId: 'upward', data: { part: from.part, target, targetPart: to.part, where: to.layer === from.layer ? 'beside it' : 'above it' } });
          }
        };
        return {
          ImportDeclaration: check,
          ExportNamedDeclaration: check,
          ExportAllDeclaration: check,
          ImportExpression: check,
        };
      },
    },
  },
};

/**
 * The layers of lib/, lowest first: what each folder may not import. consumer/, cleanup/ and database/
 * know no source, the sources not each other, and the reference stack (stack/) builds on the
 * published entry, lib/index.ts, alone (test/infra/shared-modules.test.ts).
 */
const libLayers = [
  { files: ['lib/consumer/**/*.ts', 'lib/cleanup/**/*.ts', 'lib/database/**/*.ts'], forbidden: ['sqs', 'kafka', 'stack'] },
  { files: ['lib/*.ts'], forbidden: ['stack'] },
  { files: ['lib/sqs/**/*.ts'], forbidden: ['kafka', 'stack', 'cleanup'] },
  { files: ['lib/kafka/**/*.ts'], forbidden: ['sqs', 'stack', 'cleanup'] },
  { files: ['lib/stack/**/*.ts'], forbidden: [] },
];

/**
 * The rooms (DESIGN.md): functions/ is runtime code, imported by the rest and importing none of it;
 * local/ is what sqs-inbox/local publishes; demo/ (the main jobs) and bin/ sit on top and enter the
 * kit and local/ through their doors only; bench/ and test/ may use anything.
 */
const functionsRoom = [
  { group: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'], message: 'functions/ is runtime code: it never imports aws-cdk-lib.' },
  { group: ['**/lib/*', '**/local/*', '**/demo/*', '**/bin/*', '**/test/*', '**/bench/*'], message: 'functions/ imports only functions/.' },
];
const kitDoors = {
  regex: 'functions/inbox/(?!(?:[a-z-]+/)?index\\.js$|internal\\.js$)',
  message: "Outside the kit, functions/inbox is entered through its entry points, or internal.ts for the project's own emulators, demo and benchmarks.",
};
const localDoors = {
  regex: '(^|/)local/(?!(?:[a-z-]+/)?index\\.js$|internal\\.js$)',
  message: "Outside local/, the stand-ins are entered through local/index.ts, a part's index.ts, or local/internal.ts (what the package does not offer).",
};

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', 'dist/', 'test/fixtures/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': 'off',
    },
  },
  {
    files: ['functions/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...functionsRoom] }] },
  },
  {
    files: ['functions/inbox/**/*.ts'],
    plugins: { layering },
    rules: { 'layering/inbox-layers': 'error' },
  },
  {
    files: ['functions/*/**/*.ts'],
    ignores: ['functions/inbox/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        ...functionsRoom,
        // contract.ts too: the stack's own functions read the environment names and values the stack sets for them.
        { regex: '^\\.\\./inbox/(?!(?:[a-z-]+/)?index\\.js$|contract\\.js$)', message: "The kit's entry points (functions/inbox/index.ts and functions/inbox/<part>/index.ts), and contract.ts for the values the stack shares with its functions, are the only doors into it." },
      ] }],
    },
  },
  {
    files: ['local/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [kitDoors, {
      group: ['**/demo/*', '**/bin/*', '**/bench/*', '**/test/*', '**/lib/*'],
      message: 'local/ holds only what sqs-inbox/local offers: it imports the kit and itself, never demo/, bin/, bench/, test/ or lib/.',
    }, {
      regex: 'functions/inbox/index\\.js$',
      importNames: ['InboxError', 'InboxConfigError'],
      message: "local/ throws its own errors (LocalStackError and its subclasses, local/errors.ts), so a handler's instanceof InboxError never catches an emulator's fault.",
    }] }] },
  },
  {
    files: ['demo/**/*.ts', 'bin/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [kitDoors, localDoors] }] },
  },
  {
    files: ['bench/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [kitDoors] }] },
  },
  ...libLayers.map(({ files, forbidden }) => ({
    files,
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        // The exceptions: functions/inbox/contract.ts and aws-limits.ts (plain constants both sides
        // need) and functions/inbox/migrations/migrations-hash.ts (one pure function on node:crypto).
        {
          regex: '(^|/)(functions|local|demo)/(?!inbox/contract\\.js$|inbox/aws-limits\\.js$|inbox/migrations/migrations-hash\\.js$)',
          message: 'lib/ never imports runtime code: refer to functions/ by entry path only (functions/inbox/contract.ts, aws-limits.ts and migrations/migrations-hash.ts are the exceptions).',
        },
        ...forbidden.map((folder) => ({
          regex: `(^|/)${folder}/[^/]+\\.js$`,
          message: `lib/ is layered: the shared parts (the lib/ root, consumer/, cleanup/) under the sources (sqs/, kafka/), the reference stack (stack/) on top; nothing here imports from ${folder}/.`,
        })),
      ] }],
    },
  })),
);
