/** /dashboard: the admin dashboard (users) for admins, the staff dashboard (assignments) for everyone else. */
import { StaffDashboard } from '../../features/assignments/components/StaffDashboard';
import { AdminDashboard } from '../../features/users/components/AdminDashboard';
import { useSession } from '../../lib/sessionContext';

export default function DashboardPage() {
  const { user } = useSession();
  if (!user) return null; // the route guard has already sent visitors without a session to /login
  return user.role === 'admin' ? <AdminDashboard /> : <StaffDashboard name={user.name} role={user.role} />;
}
