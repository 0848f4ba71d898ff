/** What a message move task handle names: one task of one source queue. */
export interface MoveTaskHandleParts {
  readonly taskId: string;
  readonly sourceArn: string;
}

/**
 * The handle StartMessageMoveTask answers: base64 of `{"taskId":"<uuid>","sourceArn":"<arn>"}`, the
 * form SQS hands out (LocalStack's tests decode a handle of the real service into exactly these two
 * fields: localstack/localstack tests/aws/services/sqs/test_sqs_move_task.py), so CancelMessageMoveTask
 * finds the queue from the handle alone.
 *
 * @example
 * ```ts
 * const handle = newMoveTaskHandle({ taskId: randomUUID(), sourceArn: dlq.arn });
 * parseMoveTaskHandle(handle)?.sourceArn === dlq.arn // true
 * ```
 */
export function newMoveTaskHandle(parts: MoveTaskHandleParts): string {
  return Buffer.from(JSON.stringify({ taskId: parts.taskId, sourceArn: parts.sourceArn }), 'utf8').toString('base64');
}

/** The task and source a handle names, or undefined for a string that is no move task handle. */
export function parseMoveTaskHandle(handle: unknown): MoveTaskHandleParts | undefined {
  if (typeof handle !== 'string' || !/^[A-Za-z0-9+/]+=*$/.test(handle)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(handle, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { taskId, sourceArn } = parsed as Record<string, unknown>;
  if (typeof taskId !== 'string' || taskId === '' || typeof sourceArn !== 'string' || sourceArn === '') return undefined;
  return { taskId, sourceArn };
}
