// Cards for the blocks the editor does not edit as text, and the small forms for the few it can edit (code,
// image). Everything else is shown read-only and saved back exactly as it came (see lossless.js).
import { useEditor } from '@portabletext/editor'
import { useEffect, useId, useRef, useState } from 'react'
import { SERVER_BLOCK_TYPES } from './lossless.js'
import { formFields } from './plugins.jsx'

const EDITABLE = new Set(['code', 'image'])
const NAMES = {
  htmlBlock: 'HTML',
  embed: 'Embed',
  table: 'Table',
  gallery: 'Gallery',
  video: 'Video',
  audio: 'Audio',
  file: 'File',
  button: 'Button',
  columns: 'Columns',
  group: 'Group',
  cover: 'Cover',
  mediaText: 'Media and text',
  sectionReference: 'Section',
  shortcode: 'Shortcode',
}

function newKey() {
  const bytes = new Uint8Array(6)
  crypto.getRandomValues(bytes)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}

export function insertObject(editor, store, block) {
  const stub = store.putObject({ ...block, _key: block._key || newKey() })
  editor.send({ type: 'insert.block', block: stub, placement: 'auto', select: 'none' })
  editor.send({ type: 'focus' })
}

function summary(block) {
  const text =
    block.caption || block.alt || block.text || block.name || block.url || block.code || block.html || block.raw || ''
  const flat = String(text).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat
}

function title(block, plugin) {
  if (block._importError) return 'Imported block with an error'
  if (block._type === 'image') return 'Image'
  if (block._type === 'code') return block.language ? `Code block (${block.language})` : 'Code block'
  if (block._type === 'break') return block.style === 'separator' ? 'Horizontal rule' : `Break: ${block.style}`
  if (plugin) return plugin.title || block._type
  if (!SERVER_BLOCK_TYPES.includes(block._type)) return `Plugin block: ${block._type}`
  return `${NAMES[block._type] || block._type} (kept as it is)`
}

export function ObjectCard({ block, plugin, onEdit }) {
  const heading = title(block, plugin)
  const editable = !block._importError && (EDITABLE.has(block._type) || (plugin && formFields(plugin).length > 0))
  const detail = block._importError
    ? String(block._importError.message || block._importError)
    : block._type === 'image'
      ? [block.mediaId && `Media ${block.mediaId}`, block.alt && `Alt: ${block.alt}`, block.caption].filter(Boolean).join(' · ')
      : block._type === 'code'
        ? ''
        : plugin
          ? formFields(plugin)
              .filter((field) => block[field.name] !== undefined && block[field.name] !== '')
              .map((field) => `${field.label}: ${block[field.name]}`)
              .join(' · ')
          : summary(block)
  return (
    <div className="pt-card" contentEditable={false} data-block-type={block._type}>
      <span className="pt-card-title">{heading}</span>
      {detail && <span className="pt-card-detail">{detail}</span>}
      {block._type === 'code' && block.code && <pre className="pt-card-code">{block.code}</pre>}
      {editable && (
        <button type="button" className="pt-card-edit" onClick={() => onEdit(block)} aria-label={`Edit ${heading.toLowerCase()}`}>
          Edit
        </button>
      )}
    </div>
  )
}

function Field({ id, label, children, hint }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && <p className="hint">{hint}</p>}
    </div>
  )
}

export function ObjectForm({ form, store, onDone }) {
  const editor = useEditor()
  const id = useId()
  const first = useRef(null)
  const [block, setBlock] = useState(form.block)
  const [error, setError] = useState('')
  const picked = useRef(false)
  const set = (name, value) => setBlock((current) => ({ ...current, [name]: value }))

  useEffect(() => {
    // The media library's picker (another part of the studio) when it is on the page; the media id field otherwise.
    const pick = window.cmsStudio?.pickMedia
    if (form.isNew && block._type === 'image' && pick && !picked.current) {
      picked.current = true
      Promise.resolve(pick({ type: 'image' })).then((media) => {
        if (media?.id) setBlock((current) => ({ ...current, mediaId: media.id, alt: media.alt || current.alt || '' }))
      })
    }
    first.current?.focus()
  }, [])

  const save = () => {
    const out = { ...block }
    for (const name of ['alt', 'caption', 'language']) if (out[name] === '') delete out[name]
    if (out._type === 'image' && !out.mediaId && !out.url) {
      setError('Choose an image: give its media id.')
      first.current?.focus()
      return
    }
    if (form.isNew) insertObject(editor, store, out)
    else {
      store.putObject(out)
      // Touch the stub so the card redraws and the change reaches the textarea like any other edit.
      editor.send({ type: 'block.set', at: [{ _key: out._key }], props: { v: Date.now() } })
    }
    onDone()
  }
  const keys = (event) => {
    if (event.key === 'Escape') onDone()
  }
  const what = block._type === 'image' ? 'Image' : 'Code block'
  return (
    <div className="pt-object-form" role="group" aria-label={form.isNew ? `Insert ${what.toLowerCase()}` : `Edit ${what.toLowerCase()}`} onKeyDown={keys}>
      {block._type === 'image' && (
        <>
          <Field id={`${id}-media`} label="Media id" hint="The id of an item in the media library.">
            <input
              type="text"
              id={`${id}-media`}
              ref={first}
              value={block.mediaId || ''}
              aria-invalid={error ? 'true' : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(event) => set('mediaId', event.target.value.trim())}
            />
          </Field>
          <Field id={`${id}-alt`} label="Alternative text">
            <input type="text" id={`${id}-alt`} value={block.alt || ''} onChange={(event) => set('alt', event.target.value)} />
          </Field>
          <Field id={`${id}-caption`} label="Caption">
            <input type="text" id={`${id}-caption`} value={block.caption || ''} onChange={(event) => set('caption', event.target.value)} />
          </Field>
        </>
      )}
      {block._type === 'code' && (
        <>
          <Field id={`${id}-lang`} label="Language">
            <input type="text" id={`${id}-lang`} ref={first} value={block.language || ''} onChange={(event) => set('language', event.target.value.trim())} />
          </Field>
          <Field id={`${id}-code`} label="Code">
            <textarea id={`${id}-code`} className="code" rows={8} value={block.code || ''} onChange={(event) => set('code', event.target.value)} />
          </Field>
        </>
      )}
      {error && (
        <p className="error" id={`${id}-error`}>
          {error}
        </p>
      )}
      <div className="pt-form-actions">
        <button type="button" className="primary" onClick={save}>
          {form.isNew ? `Insert ${what.toLowerCase()}` : 'Apply'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </div>
  )
}
