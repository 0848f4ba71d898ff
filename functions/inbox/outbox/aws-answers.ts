import { awsErrorSummary, isRetryableAwsError } from '../aws-errors.js';
import type { PublishAnswer } from './publisher.js';

// Refusals that a change of configuration (a policy, a key) cures: the rows wait for it.
const CONFIGURATION = /AccessDenied|Authorization|NotAuthorized|KMS|Kms|InvalidSecurity|ExpiredToken|UnrecognizedClient|InvalidClientTokenId|SignatureDoesNotMatch|Credentials/;

function reasonOf(error: unknown): string {
  const { code, message } = awsErrorSummary(error);
  return `${code}: ${message}`;
}

/**
 * One call of a built-in publisher, answered entry by entry however it ends. A call that threw:
 * - the target does not exist (`isGone`): every entry refused for ever;
 * - a transient error, no answer, an abort, or a refusal of rights or keys: every entry `retry`;
 * - any other refusal of the request as a whole: with one entry, that entry is refused; with more,
 *   each is sent again alone, so one bad entry cannot keep the others back.
 *
 * @example
 * ```ts
 * return answeredCall(entries, (batch) => sendBatch(batch), (error) => (error as Error).name === 'QueueDoesNotExist');
 * ```
 */
export async function answeredCall<E>(
  entries: readonly E[],
  call: (entries: readonly E[]) => Promise<PublishAnswer[]>,
  isGone: (error: unknown) => boolean,
): Promise<PublishAnswer[]> {
  try {
    return await call(entries);
  } catch (error) {
    const reason = reasonOf(error);
    if (isGone(error)) return entries.map(() => ({ kind: 'refused', reason: `the target does not exist (${reason})` }));
    const name = (error as { name?: unknown })?.name;
    if (isRetryableAwsError(error) || (typeof name === 'string' && CONFIGURATION.test(name))) return entries.map(() => ({ kind: 'retry', reason }));
    if (entries.length === 1) return [{ kind: 'refused', reason }];
    const answers: PublishAnswer[] = [];
    for (const entry of entries) answers.push(...await answeredCall([entry], call, isGone));
    return answers;
  }
}

/**
 * The answer of an entry an SQS or SNS batch reported: `Successful`, `Failed` as the sender's fault
 * (refused for ever), `Failed` on the service's side or left out of both lists (sent again).
 *
 * @example
 * ```ts
 * entryAnswers(entries.map((_, i) => String(i)), response.Successful, response.Failed)
 * ```
 */
export function entryAnswers(
  ids: readonly string[],
  successful: readonly { Id?: string | undefined }[] | undefined,
  failed: readonly { Id?: string | undefined; Code?: string | undefined; Message?: string | undefined; SenderFault?: boolean | undefined }[] | undefined,
): PublishAnswer[] {
  const answers = new Map<string, PublishAnswer>();
  for (const success of successful ?? []) answers.set(success.Id ?? '', { kind: 'sent' });
  for (const failure of failed ?? []) {
    const reason = `${failure.Code ?? 'InternalError'}: ${failure.Message ?? ''}`;
    answers.set(failure.Id ?? '', failure.SenderFault ? { kind: 'refused', reason } : { kind: 'retry', reason });
  }
  return ids.map((id) => answers.get(id) ?? { kind: 'retry', reason: 'not acknowledged in the batch response' });
}
