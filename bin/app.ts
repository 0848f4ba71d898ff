import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { InboxStack } from '../lib/stack/inbox-stack.js';
import { stackConfigFromContext } from '../lib/stack/stack-config.js';

const app = new App();
const config = stackConfigFromContext(app.node);

new InboxStack(app, `SqsInbox-${config.stage}`, {
  config,
  description: `sqs-inbox reference stack (${config.stage}): Aurora Serverless v2 + Data API, FIFO order worker, inbox cleanup`,
});
Tags.of(app).add('project', 'sqs-inbox');
Tags.of(app).add('stage', config.stage);
// Every synth is checked: an unacknowledged AwsSolutions finding fails `npm run synth` and `cdk deploy`.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
