/** An IAM policy statement as it stands in a synthesized template. */
export interface Statement {
  readonly Sid?: string;
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** A statement's actions, one or many. */
export const actionsOf = (statement: Statement): string[] => [statement.Action].flat();

/** A statement's resources, one or many: `'*'` is found whether it stands alone or in a list. */
export const resourcesOf = (statement: Statement): unknown[] => [statement.Resource].flat();

/**
 * The statements that grant on `*`, alone or beside other resources.
 *
 * @example
 * ```ts
 * expect(onWildcard(statements)).toEqual([]);
 * ```
 */
export const onWildcard = (statements: readonly Statement[]): Statement[] => statements.filter((s) => resourcesOf(s).includes('*'));
