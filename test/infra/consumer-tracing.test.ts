import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { InboxConsumer, type InboxConsumerProps } from '../../lib/index.js';
import { baseProps, clusterStack } from './consumer-fixture.js';

const ADOT_ARN = 'arn:aws:lambda:us-east-1:901920570463:layer:aws-otel-nodejs-amd64-ver-1-30-1:1';

function tracedTemplate(tracing: InboxConsumerProps['tracing']): Template {
  const { stack, cluster } = clusterStack();
  new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), tracing });
  return Template.fromStack(stack);
}

describe('the consumer\'s function is traced when asked', () => {
  it('turns on X-Ray active tracing, with the permission to send traces', () => {
    const template = tracedTemplate({ xray: true });

    template.hasResourceProperties('AWS::Lambda::Function', { TracingConfig: { Mode: 'Active' } });
    template.hasResourceProperties('AWS::IAM::Policy', { PolicyDocument: { Statement: Match.arrayWith([
      Match.objectLike({ Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'] }),
    ]) } });
  });

  it('adds the ADOT layer and its wrapper, beside the construct\'s own environment', () => {
    const { stack, cluster } = clusterStack();
    new InboxConsumer(stack, 'Orders', { ...baseProps(cluster), tracing: { adotLayer: lambda.LayerVersion.fromLayerVersionArn(stack, 'Adot', ADOT_ARN) } });
    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::Lambda::Function', {
      Layers: [ADOT_ARN],
      Environment: { Variables: Match.objectLike({ AWS_LAMBDA_EXEC_WRAPPER: '/opt/otel-handler', INBOX_CONSUMER: Match.anyValue() }) },
    });
  });

  it('leaves the function as it was without tracing', () => {
    const template = tracedTemplate(undefined);
    const [fn] = Object.values(template.findResources('AWS::Lambda::Function', { Properties: { Handler: Match.anyValue(), Environment: { Variables: Match.objectLike({ INBOX_CONSUMER: Match.anyValue() }) } } }));

    expect(fn).toBeDefined();
    expect(fn?.Properties.TracingConfig).toBeUndefined();
    expect(fn?.Properties.Layers).toBeUndefined();
    expect(fn?.Properties.Environment.Variables.AWS_LAMBDA_EXEC_WRAPPER).toBeUndefined();
  });
});
