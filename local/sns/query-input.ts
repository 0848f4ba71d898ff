/** A decoded AWS Query request: members by name, lists (`member.N`, `entry.N`) as arrays. */
export type QueryValue = string | QueryInput | QueryValue[];
export interface QueryInput { [name: string]: QueryValue }

/** A tree node while the flat names are put together. */
type Node = { value?: string; children: Map<string, Node> };

function toValue(node: Node): QueryValue {
  if (node.children.size === 0) return node.value ?? '';
  const list = node.children.get('member') ?? node.children.get('entry');
  if (list !== undefined && node.children.size === 1) {
    return [...list.children.entries()].sort(([a], [b]) => Number(a) - Number(b)).map(([, child]) => toValue(child));
  }
  const input: QueryInput = {};
  for (const [name, child] of node.children) input[name] = toValue(child);
  return input;
}

/**
 * The members of a form-encoded AWS Query body, put together from their flat names:
 * `PublishBatchRequestEntries.member.1.Id=a` becomes `{ PublishBatchRequestEntries: [{ Id: 'a' }] }`,
 * and `MessageAttributes.entry.1.Name` / `.Value.DataType` a list of `{ Name, Value: { DataType } }`.
 *
 * @example
 * ```ts
 * queryInput('Action=Publish&Message=hi&TopicArn=arn') // { Action: 'Publish', Message: 'hi', TopicArn: 'arn' }
 * ```
 */
export function queryInput(body: string): QueryInput {
  const root: Node = { children: new Map() };
  for (const [name, value] of new URLSearchParams(body)) {
    let node = root;
    for (const part of name.split('.')) {
      let child = node.children.get(part);
      if (child === undefined) {
        child = { children: new Map() };
        node.children.set(part, child);
      }
      node = child;
    }
    node.value = value;
  }
  const decoded = toValue(root);
  return typeof decoded === 'object' && !Array.isArray(decoded) ? decoded : {};
}

/** A member as text, or undefined when it is absent or not text. */
export function textOf(input: QueryInput, name: string): string | undefined {
  const value = input[name];
  return typeof value === 'string' ? value : undefined;
}

/** A member as a list of inputs (a missing member is an empty list). */
export function listOf(input: QueryInput, name: string): QueryInput[] {
  const value = input[name];
  return Array.isArray(value) ? value.filter((item): item is QueryInput => typeof item === 'object' && !Array.isArray(item)) : [];
}
