/** Sidebar links of spec section 2: admins get the admin menu, others Home and My Assignments. */
import { NavLink } from 'react-router-dom';
import { mayUseIntake } from '../../lib/session';
import { useSession } from '../../lib/sessionContext';

interface Item {
  to: string;
  label: string;
  short: string;
}

export const ADMIN_LINKS: Item[] = [
  { to: '/dashboard', label: 'Home', short: 'H' },
  { to: '/users', label: 'Users', short: 'U' },
  { to: '/assignments', label: 'Assignments', short: 'A' },
  { to: '/admin/containers', label: 'Storage Management', short: 'S' },
  { to: '/admin/smart-tokens', label: 'SmartToken Management', short: 'T' },
  { to: '/audit-logs', label: 'Audit Logs', short: 'L' },
  { to: '/admin/quarantine', label: 'Quarantine', short: 'Q' },
];

export const STAFF_LINKS: Item[] = [
  { to: '/dashboard', label: 'Home', short: 'H' },
  { to: '/my-assignments', label: 'My Assignments', short: 'M' },
];

/** For admins and the staff granted the intake permission (issue 51). */
export const INTAKE_LINK: Item = { to: '/intake', label: 'Intake', short: 'I' };

export function Sidebar({ collapsed }: { collapsed: boolean }) {
  const { user } = useSession();
  const links = [...(user?.role === 'admin' ? ADMIN_LINKS : STAFF_LINKS), ...(mayUseIntake(user) ? [INTAKE_LINK] : [])];
  return (
    <nav id="sidebar" className="sidebar" aria-label="Main navigation">
      <ul>
        {links.map((link) => (
          <li key={link.to}>
            <NavLink
              to={link.to}
              end={link.to === '/dashboard'}
              className={({ isActive }) => (isActive ? 'nav-link active' : 'nav-link')}
              aria-label={collapsed ? link.label : undefined}
            >
              <span className="nav-icon" aria-hidden="true">
                {link.short}
              </span>
              {/* Collapsed, the name shows beside the letter on hover and keyboard focus. */}
              <span className="nav-label" aria-hidden={collapsed ? true : undefined}>
                {link.label}
              </span>
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
