import { type App, type Stack, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** Every finding cdk-nag's AwsSolutions pack reports and nobody acknowledged, as `rule at path`. */
export function unacknowledgedFindings(app: App, stack: Stack): string[] {
  const report = new AwsSolutionsChecks(app).validateScope(stack);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => `${violation.ruleName} at ${resource.constructPath}`));
}

/** The AwsSolutions acknowledgments recorded on `scope` and the constructs under it, with their reasons. */
export function acknowledgments(scope: IConstruct): { path: string; rule: string; reason: unknown }[] {
  return scope.node.findAll().flatMap((construct) => construct.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.entries(entry.data as Record<string, unknown>))
    .filter(([rule]) => rule.includes('AwsSolutions-'))
    .map(([rule, reason]) => ({ path: construct.node.path, rule, reason })));
}
