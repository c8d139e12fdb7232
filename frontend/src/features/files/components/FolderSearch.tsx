/** "Search in this folder": the results screen with the folder's container and folder as its
 * filters (without words, the screen opens with them filled in, asking for the words). */
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { searchUrl } from '../../../lib/searchQuery';
import { FILE_MSG } from '../messages';

export function FolderSearch({ container, folder }: { container: string; folder: string }) {
  const navigate = useNavigate();
  const [q, setQ] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(searchUrl({ q, container, folder }));
  };
  return (
    <form role="search" aria-label={FILE_MSG.searchFolder} className="folder-search" onSubmit={submit}>
      <div className="field">
        <label htmlFor="folder-search">{FILE_MSG.searchFolder}</label>
        <input id="folder-search" type="search" value={q} onChange={(event) => setQ(event.target.value)} autoComplete="off" />
      </div>
      <button type="submit" className="btn">
        Search
      </button>
    </form>
  );
}
