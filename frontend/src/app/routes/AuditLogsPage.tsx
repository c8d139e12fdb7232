/** /audit-logs: the audit feature's page. */
export { default } from '../../features/audit/routes/AuditLogsPage';
