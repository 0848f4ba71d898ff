import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', 'coverage/', 'dist/', '**/*.d.ts'] },
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
        { group: ['../inbox/*', '!../inbox/index.js'], message: 'functions/inbox/index.ts is the only door into the kit.' },
      ] }],
    },
  },
  {
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [
        { group: ['**/functions/*', '**/local/*'], message: 'lib/ never imports runtime code: refer to functions/ by entry path only.' },
      ] }],
    },
  },
);
