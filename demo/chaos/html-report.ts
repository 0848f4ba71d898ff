import type { FaultMark, TimelineSample } from './timeline.js';
import type { ChaosReport } from './run-chaos.js';
import { chaosReportLines } from './chaos-report-lines.js';
import { HOP_LANE } from './hop-lane.js';

const WIDTH = 960;
const HEIGHT = 150;
const LEFT = 60;
const COLOURS: Readonly<Record<string, string>> = {
  'postgres-restart': '#d62728', 'aurora-pause': '#ff7f0e', 'data-api-restart': '#9467bd', redrive: '#2ca02c', cleanup: '#17becf', crash: '#555',
};

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface Series {
  readonly title: string;
  /** Per sample; rates are per second of the sample's span. */
  readonly value: (sample: TimelineSample, spanMs: number) => number;
}

const SERIES: readonly Series[] = [
  { title: 'deliveries per second', value: (sample, spanMs) => (sample.deliveries * 1000) / spanMs },
  { title: 'commits per second (inbox rows written)', value: (sample, spanMs) => (sample.commits * 1000) / spanMs },
  { title: 'failed deliveries per second', value: (sample, spanMs) => (sample.failures * 1000) / spanMs },
  { title: 'in flight', value: (sample) => sample.inFlight },
  { title: 'backlog (visible, and the Kafka lag)', value: (sample) => sample.backlog },
];

/** The second hop's charts, with the outbox. */
const HOP_SERIES: readonly Series[] = [
  { title: `second hop: ${HOP_LANE} deliveries per second`, value: (sample, spanMs) => ((sample.laneDeliveries[HOP_LANE] ?? 0) * 1000) / spanMs },
  { title: 'second hop: shipment notices written per second', value: (sample, spanMs) => (sample.noticesWritten * 1000) / spanMs },
];

/** The second hop's faults, counted, for the faults table. */
function hopFaultRows(hop: NonNullable<ChaosReport['hop']>): string {
  const faults: [string, number][] = [
    ['send crash after the commit, before the send', hop.faults.sendCrashes.beforeSend],
    ['send crash after the send, before the mark', hop.faults.sendCrashes.afterSend],
    ['invocation past its visibility timeout beside a second one', hop.faults.lapses.overlapped],
    ['lost send answer', hop.faults.lostSendAnswers],
    ['failed send entry', hop.faults.failedSendEntries],
    ['relay crash', hop.relay.crashes],
    ['two relays at once', hop.relay.twiceAtOnce],
    ['notice crash before commit', hop.noticeCrashes.beforeCommit],
    ['notice crash after commit', hop.noticeCrashes.afterCommit],
    ['notice twin delivery', hop.noticeTwins],
  ];
  return faults.map(([name, count]) => `<tr data-hop-fault="${escape(name)}"><td>${escape(name)}</td><td>${count}</td></tr>`).join('');
}

/** One chart: the series as a line, the faults as bands (with a duration) or ticks (instants) behind it. */
function chart(series: Series, samples: readonly TimelineSample[], marks: readonly FaultMark[], endMs: number): string {
  const x = (ms: number) => LEFT + ((WIDTH - LEFT - 10) * ms) / Math.max(1, endMs);
  const values = samples.map((sample, index) => series.value(sample, Math.max(1, sample.atMs - (samples[index - 1]?.atMs ?? 0))));
  const top = Math.max(1, ...values);
  const y = (value: number) => HEIGHT - 20 - ((HEIGHT - 30) * value) / top;
  const line = samples.map((sample, index) => `${x(sample.atMs).toFixed(1)},${y(values[index]!).toFixed(1)}`).join(' ');
  const behind = marks.map((mark) => {
    const colour = COLOURS[mark.kind] ?? '#999';
    const title = `<title>${escape(`${mark.id} at ${(mark.atMs / 1000).toFixed(1)} s${mark.durationMs > 0 ? ` for ${(mark.durationMs / 1000).toFixed(1)} s` : ''}${mark.detail ? `: ${mark.detail}` : ''}`)}</title>`;
    if (mark.durationMs > 0 && mark.kind !== 'cleanup') {
      return `<rect x="${x(mark.atMs).toFixed(1)}" y="10" width="${Math.max(1, x(mark.atMs + mark.durationMs) - x(mark.atMs)).toFixed(1)}" height="${HEIGHT - 30}" fill="${colour}" opacity="0.18">${title}</rect>`;
    }
    const [from, to] = mark.kind === 'crash' ? [HEIGHT - 24, HEIGHT - 18] : [10, 16];
    return `<line x1="${x(mark.atMs).toFixed(1)}" x2="${x(mark.atMs).toFixed(1)}" y1="${from}" y2="${to}" stroke="${colour}">${title}</line>`;
  }).join('');
  const ticks = Array.from({ length: 11 }, (_, index) => (endMs * index) / 10)
    .map((ms) => `<text x="${x(ms).toFixed(1)}" y="${HEIGHT - 5}" font-size="10" text-anchor="middle">${(ms / 1000).toFixed(0)} s</text>`).join('');
  return `<h3>${escape(series.title)}</h3><svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">`
    + `${behind}<line x1="${LEFT}" x2="${WIDTH - 10}" y1="${HEIGHT - 20}" y2="${HEIGHT - 20}" stroke="#000"/>`
    + `<text x="${LEFT - 5}" y="${y(top) + 4}" font-size="10" text-anchor="end">${top.toFixed(0)}</text><text x="${LEFT - 5}" y="${HEIGHT - 20}" font-size="10" text-anchor="end">0</text>`
    + `<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="${line}"/>${ticks}</svg>`;
}

/**
 * The chaos run as one self-contained HTML page (inline SVG, no script, nothing fetched):
 * deliveries, commits and failures per second, in-flight and backlog over time, every fault of
 * the plan drawn as a band where it really happened (crashes and cleanup runs as ticks), a table of
 * every fault with its planned and actual time, and the report's lines; with the second hop, its
 * deliveries and notices written per second and a table of its faults.
 *
 * @example
 * ```ts
 * await writeFile('chaos-report.html', chaosHtmlReport(report));
 * ```
 */
export function chaosHtmlReport(report: ChaosReport): string {
  const { timeline, plan } = report;
  const endMs = Math.max(1, ...timeline.samples.map((sample) => sample.atMs), ...timeline.marks.map((mark) => mark.atMs + mark.durationMs));
  const marked = new Map(timeline.marks.map((mark) => [mark.id, mark]));
  const rows = [
    ...plan.timed.map((fault) => {
      const happened = marked.get(fault.id);
      return `<tr data-fault="${escape(fault.id)}"><td>${escape(fault.id)}</td><td>${(fault.atMs / 1000).toFixed(1)} s</td>`
        + `<td>${happened ? `${(happened.atMs / 1000).toFixed(1)} s for ${(happened.durationMs / 1000).toFixed(1)} s` : 'did not happen'}</td></tr>`;
    }),
    ...timeline.marks.filter((mark) => mark.kind === 'redrive').map((mark) => `<tr data-fault="${escape(mark.id)}"><td>${escape(mark.id)}</td><td>at the end</td><td>${(mark.atMs / 1000).toFixed(1)} s: ${escape(mark.detail ?? '')}</td></tr>`),
  ].join('');
  const crashes = timeline.marks.filter((mark) => mark.kind === 'crash').length;
  const cleanups = timeline.marks.filter((mark) => mark.kind === 'cleanup').length;
  const legend = Object.entries(COLOURS).map(([kind, colour]) => `<span style="background:${colour};opacity:0.6;padding:0 6px;margin-right:4px">&nbsp;</span>${escape(kind)}`).join(' &nbsp; ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sqs-inbox chaos run, seed ${plan.settings.seed}</title>`
    + '<style>body{font-family:system-ui,sans-serif;margin:20px;max-width:1000px}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px}pre{font-size:12px;white-space:pre-wrap}</style></head><body>'
    + `<h1>Chaos run: seed ${plan.settings.seed}, ${plan.settings.messages} messages, ${escape(plan.settings.driver)} driver</h1>`
    + `<p>${legend}</p><p>Bands: the plan's faults where they really happened; ticks on top: cleanup runs (${cleanups}); ticks at the bottom: crashed invocations (${crashes}). Hover for details.</p>`
    + [...SERIES, ...(report.hop === undefined ? [] : HOP_SERIES)].map((series) => chart(series, timeline.samples, timeline.marks, endMs)).join('')
    + `<h2>Faults</h2><table><tr><th>fault</th><th>planned</th><th>happened</th></tr>${rows}</table>`
    + (report.hop === undefined ? '' : `<h2>Second hop faults (${HOP_LANE})</h2><table><tr><th>fault</th><th>times</th></tr>${hopFaultRows(report.hop)}</table>`)
    + `<h2>Report</h2><pre>${escape(chaosReportLines(report).join('\n'))}</pre></body></html>\n`;
}
