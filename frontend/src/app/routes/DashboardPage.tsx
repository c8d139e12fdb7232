/** /dashboard: the admin dashboard (users, and malware scanning's state) for admins, the staff
 * dashboard (assignments) for everyone else. */
import { StaffDashboard } from '../../features/assignments/components/StaffDashboard';
import { useScanStatus } from '../../features/scanning/api/get-scan-status';
import { ScanningCard } from '../../features/scanning/components/ScanningCard';
import { AdminDashboard } from '../../features/users/components/AdminDashboard';
import { useSession } from '../../lib/sessionContext';

export default function DashboardPage() {
  const { user } = useSession();
  if (!user) return null; // the route guard has already sent visitors without a session to /login
  if (user.role !== 'admin') return <StaffDashboard name={user.name} role={user.role} />;
  return <AdminOverview />;
}

function AdminOverview() {
  // Asked for at once; shown under the users part once that has loaded (no layout shift).
  useScanStatus();
  return (
    <AdminDashboard>
      <ScanningCard />
    </AdminDashboard>
  );
}
