import { KEEPER_TASKS } from '../../engine/keeperPorts.js';
import { formatUnits } from '../../lib/amounts.js';
import type { KeeperStatusData } from '../../store/keeperStore.js';
import { formatTable } from '../output.js';
import { clip } from './redisArgs.js';
import { shortId } from '../../lib/fills.js';

/** What `status` shows of the keeper jobs: each job's last run, the latest claims made, and the last sweep. */
export type KeeperJobsDocument = KeeperStatusData;

/** The keeper jobs' part of the human status: job runs, claims, and the sweep's findings. */
export function renderKeeperJobs(k: KeeperJobsDocument, ago: (at: number | null | undefined) => string): string[] {
  const out: string[] = [];
  const tasks = [...new Set([...KEEPER_TASKS, ...Object.keys(k.runs)])];
  const runs = tasks.map((task) => {
    const r = k.runs[task];
    return [task, r ? ago(r.at) : 'never', r?.outcome ?? '-', r ? `${r.durationMs} ms` : '-', clip(r?.error ?? r?.summary, 80)];
  });
  out.push(`keeper jobs\n${indent(formatTable([{ header: 'JOB' }, { header: 'LAST RUN' }, { header: 'OUTCOME' }, { header: 'TOOK', align: 'right' }, { header: 'SUMMARY' }], runs))}`);
  if (k.claims.length > 0) {
    const rows = k.claims.map((c) => [c.id, shortId(c.position), c.state, c.payoutMicroUsd === null ? '-' : `$${formatUnits(c.payoutMicroUsd, 6)}`, ago(c.at), clip(c.error ?? '', 50)]);
    out.push(`claims made (latest ${k.claims.length})\n${indent(formatTable([{ header: 'INTENT' }, { header: 'POSITION' }, { header: 'STATE' }, { header: 'PAYOUT', align: 'right' }, { header: 'WHEN' }, { header: 'ERROR' }], rows))}`);
  }
  if (k.sweep) {
    const s = k.sweep;
    const lines = [`sweep (${ago(s.at)}): ${s.stranded.length} escrow(s) holding funds with no live order; $${formatUnits(s.unclaimedMicroUsd, 6)} of winnings unclaimed in ${s.unclaimed.length} position(s)`];
    if (s.stranded.length > 0) {
      const rows = s.stranded.map((e) => [e.product, shortId(e.order), e.account, shortId(e.mint), e.amount.toString(), e.intent]);
      lines.push(indent(formatTable([{ header: 'PRODUCT' }, { header: 'ORDER' }, { header: 'ESCROW' }, { header: 'MINT' }, { header: 'AMOUNT', align: 'right' }, { header: 'INTENT' }], rows)));
    }
    out.push(lines.join('\n'));
  }
  return out;
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
