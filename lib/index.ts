export { DATA_API_ACTIONS, grantDataApiCalls } from './data-api-access.js';
export { InboxConsumer } from './inbox-consumer.js';
export type { InboxConsumerAlarms } from './inbox-consumer.js';
export type { InboxConsumerProps } from './inbox-consumer-props.js';
export { InboxDashboard } from './inbox-dashboard.js';
export type { InboxDashboardProps } from './inbox-dashboard.js';
export { INBOX_RUNTIME } from './inbox-runtime.js';
export { InfraConfigError } from './infra-config-error.js';
export type { InboxOutcome, OutcomeMetricSource } from './outcome-metrics.js';
