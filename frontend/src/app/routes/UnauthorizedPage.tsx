/** /unauthorized: where a signed-in user lands on a route their role may not open. */
import { Link } from 'react-router-dom';
import { PageHeader } from '../../components/States';

export default function UnauthorizedPage() {
  return (
    <>
      <PageHeader title="Access denied" />
      <div className="panel">
        <p>You don't have permission to view this page. It is available to other roles only.</p>
        <p>
          <Link to="/dashboard">Go to your dashboard</Link>
        </p>
      </div>
    </>
  );
}
