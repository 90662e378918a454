// "Link to an entry": the same search as the reference picker (/_cms/admin/pick/entries, which reads through the
// content selectors with the signed-in user), over one collection or all of them. The link it makes is an ordinary
// link annotation the validator accepts, whose href is the entry's REST address, naming the entry as a menu item
// does (referenceCollection, referenceId) so a site can resolve it to wherever it shows that entry.
import { useEffect, useId, useRef, useState } from 'react'

const PICK = '/_cms/admin/pick/entries'

export function readCollections(textarea) {
  try {
    const list = JSON.parse(textarea.dataset.linkCollections || '[]')
    return Array.isArray(list) ? list.filter((item) => item && typeof item.slug === 'string') : []
  } catch {
    return []
  }
}

export function entryLink(collection, entry) {
  return {
    href: `/_cms/api/content/${encodeURIComponent(collection)}/${encodeURIComponent(entry.id)}`,
    referenceCollection: collection,
    referenceId: entry.id,
  }
}

async function search(collection, text, signal) {
  const query = new URLSearchParams({ collection, q: text })
  const response = await fetch(`${PICK}?${query}`, { credentials: 'same-origin', headers: { Accept: 'application/json' }, signal })
  if (!response.ok) throw new Error(`entry search failed: ${response.status}`)
  const body = await response.json()
  return (body.data?.items || []).map((item) => ({ ...item, collection }))
}

export function EntrySearch({ collections, current, onChoose, onCancel }) {
  const id = useId()
  const [collection, setCollection] = useState(current && collections.some((c) => c.slug === current) ? current : '')
  const [text, setText] = useState('')
  const [found, setFound] = useState(null)
  const [error, setError] = useState('')
  const input = useRef(null)
  useEffect(() => {
    input.current?.focus()
  }, [])
  useEffect(() => {
    const controller = new AbortController()
    const targets = collection ? [collection] : collections.map((c) => c.slug)
    Promise.all(targets.map((slug) => search(slug, text.trim(), controller.signal)))
      .then((lists) => {
        setFound(lists.flat())
        setError('')
      })
      .catch((problem) => {
        if (problem.name !== 'AbortError') setError('The search did not answer; try again.')
      })
    return () => controller.abort()
  }, [collection, text, collections])
  const label = (slug) => collections.find((c) => c.slug === slug)?.label || slug
  return (
    <div className="pt-entry-search" role="group" aria-label="Link to an entry">
      <label htmlFor={`${id}-collection`}>Collection</label>
      <select id={`${id}-collection`} value={collection} onChange={(event) => setCollection(event.target.value)}>
        <option value="">All collections</option>
        {collections.map((c) => (
          <option key={c.slug} value={c.slug}>
            {c.label}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-q`}>Find an entry</label>
      <input
        id={`${id}-q`}
        ref={input}
        type="search"
        value={text}
        aria-describedby={`${id}-status`}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') event.preventDefault()
          if (event.key === 'Escape') onCancel()
        }}
      />
      <p className="hint" id={`${id}-status`} aria-live="polite">
        {error || (found === null ? 'Searching…' : found.length ? `${found.length} found` : 'No entries found')}
      </p>
      {found && found.length > 0 && (
        <ul className="pt-entry-results">
          {found.map((entry) => (
            <li key={`${entry.collection}/${entry.id}`}>
              <button type="button" onClick={() => onChoose(entry.collection, entry)}>
                {entry.title}
                <span className={`badge ${entry.changed ? 'changed' : entry.status}`}>{entry.changed ? 'changed' : entry.status}</span>
                {!collection && <span className="meta">{label(entry.collection)}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
