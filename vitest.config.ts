import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/cdk-assemblies.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The AWS SDK's paragraph about Node.js 22 (January 2027) once per worker says nothing a test checks.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // The end-to-end files spend most of their time waiting out visibility timeouts, so two files
    // more than the default (cores - 1) run beside the busy ones: on two cores 83 s instead of 148 s.
    maxWorkers: availableParallelism() + 1,
  },
});
