// Types of dashboards/alerts-config.mjs for the TypeScript tests that import it.

/** The one config of the Prometheus rules; docs/alerts.md documents each field and its default. */
export interface AlertsConfig {
  selector: string;
  serverFaultCodes: string[];
  rateWindow: string;
  runbookUrl: string;
  errorRatio: { threshold: number; for: string };
  serverFaults: { perSecond: number; growth: number; for: string };
  conformance: { for: string };
  auditLost: { for: string };
  auditQueue: { queueLimit: number; fraction: number; for: string };
  amplification: { threshold: number; for: string };
  targetDown: { lookback: string; for: string };
}

export const ALERTS_CONFIG: Readonly<AlertsConfig>;
