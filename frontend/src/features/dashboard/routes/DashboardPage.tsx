/** /dashboard: the admin dashboard for admins, the staff dashboard for everyone else. */
import { useSession } from '../../../lib/sessionContext';
import { AdminDashboard } from './AdminDashboard';
import { StaffDashboard } from './StaffDashboard';

export default function DashboardPage() {
  const { user } = useSession();
  if (!user) return null; // the route guard has already sent visitors without a session to /login
  return user.role === 'admin' ? <AdminDashboard /> : <StaffDashboard name={user.name} role={user.role} />;
}
