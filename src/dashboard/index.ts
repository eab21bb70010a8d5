// The dashboard: Bull Board (read-only), the status page, /api/status, /metrics, /healthz and /readyz.
export { dashboardApp, startDashboard, type DashboardDeps, type RunningDashboard } from './server.js';
export { KeeperMetrics } from './metrics.js';
export { dashboardSettings, dashboardUrl, isLoopback, DEFAULT_DASHBOARD_HOST, DEFAULT_DASHBOARD_PORT, type DashboardConfig, type DashboardSettings } from './settings.js';
export { judgeHealth, type HealthReport } from './health.js';
export { ValueSeries, type ValuePoint } from './series.js';
