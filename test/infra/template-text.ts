/**
 * A template value (a string, or an Fn::Join of strings and references) as the text CloudFormation
 * makes of it, each reference written as `<Ref X>` or `<X.Attr>` and the pseudo parameters as a
 * stack in eu-west-1 of account 123456789012 has them, so JSON the constructs wrote can be parsed.
 *
 * @example
 * ```ts
 * JSON.parse(renderedText(variables.INBOX_OUTBOX_TARGETS)) // { shipped: { type: 'sqs', queueUrl: '<Ref ShippedQueue1234>' } }
 * ```
 */
export function renderedText(value: unknown): string {
  if (typeof value === 'string') return value;
  const object = value as Record<string, unknown>;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(renderedText).join(separator);
  }
  if ('Ref' in object) {
    const pseudo: Record<string, string> = { 'AWS::URLSuffix': 'amazonaws.com', 'AWS::Partition': 'aws', 'AWS::Region': 'eu-west-1', 'AWS::AccountId': '123456789012' };
    return pseudo[object.Ref as string] ?? `<Ref ${String(object.Ref)}>`;
  }
  if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}
