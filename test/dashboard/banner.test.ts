// The console's side of the dashboard's URL (issue 23, item 7): the banner names it, says when the default port was
// in use, or that there is none; the dashboard's own "listening" record is folded into the banner that follows.
import { describe, expect, it } from 'vitest';
import { formatRecord } from '../../src/lib/consoleFormat.js';

const started = { level: 30, time: Date.UTC(2026, 10, 28, 6, 0, 0), msg: 'keeper started', venue: 'simulator', venueUrl: 'http://127.0.0.1:4000', wallet: 'Wa11et', strategies: [] };

describe('the banner', () => {
  it('names the dashboard, and the busy port it moved from', () => {
    expect(formatRecord({ ...started, dashboard: 'http://127.0.0.1:8787/' })).toContain('\n wallet     Wa11et\n dashboard  http://127.0.0.1:8787/\n');
    expect(formatRecord({ ...started, dashboard: 'http://127.0.0.1:8788/', dashboardBusyPort: 8787 })).toContain('\n dashboard  http://127.0.0.1:8788/  (port 8787 is in use, another keeper?)\n');
  });

  it('says when there is no dashboard', () => {
    expect(formatRecord({ ...started, dashboard: null })).toContain('\n dashboard  off\n');
  });

  it('leaves out the dashboard\'s own line, which it repeats', () => {
    expect(formatRecord({ level: 30, time: started.time, msg: 'dashboard at http://127.0.0.1:8788/ (127.0.0.1:8787 is in use, another keeper?)', component: 'dashboard', url: 'http://127.0.0.1:8788/', busyPort: 8787 })).toBeUndefined();
    // A dashboard error still shows.
    expect(formatRecord({ level: 50, time: started.time, msg: 'dashboard server error', component: 'dashboard', err: 'boom' })).toContain('dashboard server error');
  });
});
