import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { InboxConfigError } from '../functions/inbox/index.js';
import { LocalConfigError } from '../local/internal.js';
import { CHAOS_DEFAULTS as D, chaosPlan, planLines, type ChaosOptions } from '../demo/chaos/chaos-plan.js';
import { chaosHtmlReport } from '../demo/chaos/html-report.js';
import { chaosReportLines } from '../demo/chaos/chaos-report-lines.js';
import { runChaos } from '../demo/chaos/run-chaos.js';

const usage = `npm run chaos -- [--messages ${D.messages}] [--seed ${D.seed}] [--driver ${D.driver}|pg] [--send-seconds N] [--pause-seconds ${D.pauseSeconds}]
                    [--retention-seconds ${D.retentionSeconds}] [--cleanup-every ${D.cleanupEverySeconds}] [--fault-rate ${D.crashRate}] [--twice-rate ${D.deliverTwiceRate}]
                    [--retry-rate ${D.producerRetryRate}] [--poison ${D.poison}] [--stuck ${D.stuck}] [--lost-deletes ${D.lostDeletes}] [--no-outbox] [--report chaos-report.html] [--plan-only]

  SQS FIFO, SQS standard and Kafka side by side on one PostgreSQL, every fault of the main jobs at
  once, PostgreSQL restarted twice, Aurora paused twice, the Data API emulator restarted once, the
  inbox cleanup on its schedule, the SQS DLQs redriven at the end. The FIFO lane's ship-order worker
  sends each shipment through its outbox to a second FIFO queue and the shipment-notice worker, under
  the outbox's send and relay faults. The same seed gives the same plan.

  --messages           messages in all, split over the three lanes
  --send-seconds       the producers' window, inside which the timed faults fall (default messages / 30, at least 20)
  --pause-seconds      each Aurora pause (DatabaseResumingException)
  --retention-seconds  the cleanup's inbox retention: the queues and the DLQs keep messages half of it each
  --no-outbox          without the second hop (the FIFO lane's outbox, the notice queue and worker, the relays)
  --report             where the HTML report goes
  --plan-only          print the fault plan and stop`;

const { values } = parseArgs({
  options: {
    messages: { type: 'string' }, seed: { type: 'string' }, driver: { type: 'string' }, 'send-seconds': { type: 'string' },
    'pause-seconds': { type: 'string' }, 'retention-seconds': { type: 'string' }, 'cleanup-every': { type: 'string' },
    'fault-rate': { type: 'string' }, 'twice-rate': { type: 'string' }, 'retry-rate': { type: 'string' },
    poison: { type: 'string' }, stuck: { type: 'string' }, 'lost-deletes': { type: 'string' }, 'no-outbox': { type: 'boolean', default: false },
    report: { type: 'string', default: 'chaos-report.html' }, 'plan-only': { type: 'boolean', default: false }, help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const numberOf = (text: string | undefined) => (text === undefined ? undefined : Number(text));
const options: ChaosOptions = {
  messages: numberOf(values.messages), seed: numberOf(values.seed), driver: values.driver as ChaosOptions['driver'],
  sendSeconds: numberOf(values['send-seconds']), pauseSeconds: numberOf(values['pause-seconds']), retentionSeconds: numberOf(values['retention-seconds']),
  cleanupEverySeconds: numberOf(values['cleanup-every']), crashRate: numberOf(values['fault-rate']), deliverTwiceRate: numberOf(values['twice-rate']),
  producerRetryRate: numberOf(values['retry-rate']), poison: numberOf(values.poison), stuck: numberOf(values.stuck), lostDeletes: numberOf(values['lost-deletes']),
  outbox: !values['no-outbox'],
};
if (process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED === undefined) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

try {
  for (const line of planLines(chaosPlan(options))) console.log(line);
  if (values['plan-only']) process.exit(0);
  const report = await runChaos(options, (stage) => console.log(`-- ${stage}`));
  await writeFile(values.report, chaosHtmlReport(report));
  for (const line of chaosReportLines(report)) console.log(line);
  console.log(`HTML report: ${values.report}`);
  if (!report.verdict.ok) process.exit(1);
} catch (error) {
  if (error instanceof InboxConfigError || error instanceof LocalConfigError) {
    console.error(`${error.message}\n\n${usage}`);
    process.exit(2);
  }
  throw error;
}
