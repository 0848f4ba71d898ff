import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers of lib/, lowest first: what each folder may not import. consumer/ and cleanup/ know no
 * source, the sources not each other, and only stack/ (the reference stack) builds on all of them.
 */
const libLayers = [
  { files: ['lib/consumer/**/*.ts', 'lib/cleanup/**/*.ts'], forbidden: ['sqs', 'kafka', 'stack'] },
  { files: ['lib/*.ts'], forbidden: ['stack'] },
  { files: ['lib/sqs/**/*.ts'], forbidden: ['kafka', 'stack', 'cleanup'] },
  { files: ['lib/kafka/**/*.ts'], forbidden: ['sqs', 'stack', 'cleanup'] },
  { files: ['lib/stack/**/*.ts'], forbidden: [] },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', 'dist/', 'test/fixtures/consumer-project/', '**/*.d.ts'] },
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
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'], message: 'functions/ is runtime code: it never imports aws-cdk-lib.' },
        { group: ['**/lib/*', '**/local/*', '**/test/*', '**/bench/*'], message: 'functions/ imports only functions/.' },
      ] }],
    },
  },
  {
    files: ['functions/*/**/*.ts'],
    ignores: ['functions/inbox/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'], message: 'functions/ is runtime code: it never imports aws-cdk-lib.' },
        { regex: '^\\.\\./inbox/(?!(?:[a-z-]+/)?index\\.js$)', message: "The kit's entry points (functions/inbox/index.ts and functions/inbox/<part>/index.ts) are the only doors into it." },
      ] }],
    },
  },
  {
    files: ['local/**/*.ts', 'demo/**/*.ts', 'bin/**/*.ts', 'bench/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { regex: 'functions/inbox/(?!(?:[a-z-]+/)?index\\.js$|internal\\.js$)',
          message: "Outside the kit, functions/inbox is entered through its entry points, or internal.ts for the project's own emulators and benchmarks." },
      ] }],
    },
  },
  ...libLayers.map(({ files, forbidden }) => ({
    files,
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        // The exceptions: functions/inbox/contract.ts (plain constants both sides need) and
        // functions/inbox/migrations/migrations-hash.ts (one pure function on node:crypto).
        {
          regex: '(^|/)(functions|local)/(?!inbox/contract\\.js$|inbox/migrations/migrations-hash\\.js$)',
          message: 'lib/ never imports runtime code: refer to functions/ by entry path only (functions/inbox/contract.ts and migrations/migrations-hash.ts are the exceptions).',
        },
        ...forbidden.map((folder) => ({
          regex: `(^|/)${folder}/[^/]+\\.js$`,
          message: `lib/ is layered: the shared parts (the lib/ root, consumer/, cleanup/) under the sources (sqs/, kafka/), the reference stack (stack/) on top; nothing here imports from ${folder}/.`,
        })),
      ] }],
    },
  })),
);
