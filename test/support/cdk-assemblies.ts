import cxapi from 'aws-cdk-lib/cx-api';
import { afterAll } from 'vitest';

// A CDK App given no outdir synthesizes into a cdk.out* folder in the temporary folder, which CDK
// removes only when its process exits normally; a test worker does not, so each test file removes
// the assemblies it made.
afterAll(() => cxapi.CloudAssembly.cleanupTemporaryDirectories());
