import { DescribeStacksCommand, type CloudFormationClient, type Output } from '@aws-sdk/client-cloudformation';
import { STACK_OUTPUTS } from '../../contract.js';
import { OperatorCommandError } from '../errors.js';

/** A consumer of the database, as its stack outputs describe it (a Kafka consumer has no queues). */
export interface StackConsumer {
  readonly name: string;
  readonly queueUrl?: string;
  readonly deadLetterQueueUrl?: string;
}

/** What `--stack` resolves: one InboxDatabase's connection, and the consumers attached to it. */
export interface StackConnection {
  /** The `<id>` of its outputs (`Inbox`), what `--database-id` names. */
  readonly databaseId: string;
  readonly clusterArn: string;
  readonly secretArn: string;
  readonly database: string;
  readonly consumers: readonly StackConsumer[];
}

/**
 * The outputs of stack `stackName` (DescribeStacks), refused in one sentence when there is no such
 * stack in the client's region.
 *
 * @example
 * ```ts
 * const outputs = await readStackOutputs(new CloudFormationClient({ region: 'eu-west-1' }), 'SqsInbox-dev');
 * ```
 */
export async function readStackOutputs(client: CloudFormationClient, stackName: string): Promise<Output[]> {
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    return Stacks?.[0]?.Outputs ?? [];
  } catch (error) {
    if ((error as { name?: unknown }).name === 'ValidationError' && /does not exist/.test(String((error as Error).message))) {
      throw new OperatorCommandError(`No stack ${JSON.stringify(stackName)} in this region: check --stack, and --region (or AWS_REGION).`);
    }
    throw error;
  }
}

/** The `<id>` and field of an output key of `prefix`, when it is one: no field ends another, so one reading at most fits. */
function splitKey(key: string, prefix: string, fields: readonly string[]): { id: string; field: string } | undefined {
  if (!key.startsWith(prefix)) return undefined;
  const field = fields.find((name) => key.endsWith(name) && key.length > prefix.length + name.length);
  return field === undefined ? undefined : { id: key.slice(prefix.length, key.length - field.length), field };
}

/** The outputs of `prefix`, as `{ <id>: { <field>: value } }`. */
function groupOutputs(outputs: readonly Output[], prefix: string, fields: Readonly<Record<string, string>>): Map<string, Record<string, string>> {
  const groups = new Map<string, Record<string, string>>();
  for (const { OutputKey, OutputValue } of outputs) {
    const split = OutputKey === undefined || OutputValue === undefined ? undefined : splitKey(OutputKey, prefix, Object.values(fields));
    if (split === undefined) continue;
    groups.set(split.id, { ...groups.get(split.id), [split.field]: OutputValue! });
  }
  return groups;
}

/** The database of the stack `--database-id` names, or its only one. */
function chooseDatabase(stackName: string, ids: readonly string[], databaseId: string | undefined): string {
  const listed = ids.join(', ');
  if (ids.length === 0) {
    throw new OperatorCommandError(`Stack ${JSON.stringify(stackName)} has no sqs-inbox outputs (${STACK_OUTPUTS.databasePrefix}<id>${STACK_OUTPUTS.database.clusterArn} and the others): `
      + 'give the stack that holds the InboxDatabase, deployed with this version of sqs-inbox/cdk.');
  }
  if (databaseId !== undefined && !ids.includes(databaseId)) {
    throw new OperatorCommandError(`Stack ${JSON.stringify(stackName)} has no inbox database ${JSON.stringify(databaseId)}: give --database-id one of ${listed}.`);
  }
  if (databaseId === undefined && ids.length > 1) {
    throw new OperatorCommandError(`Stack ${JSON.stringify(stackName)} has ${ids.length} inbox databases: choose one with --database-id (${listed}).`);
  }
  return databaseId ?? ids[0]!;
}

/**
 * The connection to one InboxDatabase of a stack, read from its outputs (`STACK_OUTPUTS`), and
 * the consumers attached to it there; refused in one sentence when the stack has none, or several
 * and `databaseId` does not choose.
 *
 * @example
 * ```ts
 * resolveStackConnection('SqsInbox-dev', outputs) // { databaseId: 'Inbox', clusterArn, secretArn, database: 'inbox', consumers: [...] }
 * ```
 */
export function resolveStackConnection(stackName: string, outputs: readonly Output[], databaseId?: string): StackConnection {
  const databases = groupOutputs(outputs, STACK_OUTPUTS.databasePrefix, STACK_OUTPUTS.database);
  const id = chooseDatabase(stackName, [...databases.keys()].sort(), databaseId);
  const fields = databases.get(id)!;
  const missing = Object.values(STACK_OUTPUTS.database).filter((field) => fields[field] === undefined);
  if (missing.length > 0) {
    throw new OperatorCommandError(`Stack ${JSON.stringify(stackName)} lacks ${missing.map((field) => `${STACK_OUTPUTS.databasePrefix}${id}${field}`).join(', ')}: deploy it again with this version of sqs-inbox/cdk.`);
  }
  const names = STACK_OUTPUTS.consumer;
  const consumers = [...groupOutputs(outputs, STACK_OUTPUTS.consumerPrefix, names).values()]
    .filter((consumer) => consumer[names.database] === id && consumer[names.name] !== undefined)
    .map((consumer) => ({
      name: consumer[names.name]!,
      ...(consumer[names.queueUrl] === undefined ? {} : { queueUrl: consumer[names.queueUrl] }),
      ...(consumer[names.deadLetterQueueUrl] === undefined ? {} : { deadLetterQueueUrl: consumer[names.deadLetterQueueUrl] }),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return {
    databaseId: id,
    clusterArn: fields[STACK_OUTPUTS.database.clusterArn]!,
    secretArn: fields[STACK_OUTPUTS.database.operatorSecretArn]!,
    database: fields[STACK_OUTPUTS.database.databaseName]!,
    consumers,
  };
}
