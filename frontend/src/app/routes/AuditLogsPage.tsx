/** /audit-logs: the audit feature's page, given the users list (users feature) for its user filter. */
import AuditLogs from '../../features/audit/routes/AuditLogsPage';
import { useUsers } from '../../features/users/api/get-users';

export default function AuditLogsPage() {
  const users = useUsers();
  return <AuditLogs users={users.data?.users ?? []} />;
}
