// Block types that plugins contribute (apps/plugins): the server lists them with the JSON Schema of their fields in
// the textarea's data-block-types; the toolbar's Insert menu offers them and a small form, drawn from that schema,
// fills in their string, number, integer and boolean fields. Other keys of a block (rich content, lists, anything
// the schema does not describe) are never touched: a new block starts from the schema's defaults, an edited one
// keeps everything the form did not change.
import { useEditor } from '@portabletext/editor'
import { useEffect, useId, useRef, useState } from 'react'
import { insertObject } from './objects.jsx'

export function readPlugins(textarea) {
  try {
    const list = JSON.parse(textarea.dataset.blockTypes || '[]')
    return Array.isArray(list) ? list.filter((type) => type && typeof type.name === 'string') : []
  } catch {
    return []
  }
}

// The properties a form can edit, in the schema's order, each with the input it gets.
export function formFields(type) {
  const properties = type?.schema?.properties || {}
  const required = new Set(type?.schema?.required || [])
  return Object.entries(properties).flatMap(([name, spec]) => {
    if (!spec || typeof spec !== 'object') return []
    const kind = Array.isArray(spec.type) ? spec.type.find((item) => item !== 'null') : spec.type
    let input = null
    if (Array.isArray(spec.enum) && spec.enum.length) input = 'select'
    else if (kind === 'string') input = 'text'
    else if (kind === 'number' || kind === 'integer') input = 'number'
    else if (kind === 'boolean') input = 'boolean'
    if (!input) return []
    return [{ name, spec, kind, input, label: spec.title || name, required: required.has(name) }]
  })
}

export function newBlock(type) {
  const block = { _type: type.name }
  for (const [name, spec] of Object.entries(type.schema?.properties || {})) {
    if (spec && spec.default !== undefined) block[name] = JSON.parse(JSON.stringify(spec.default))
  }
  return block
}

function shown(field, value) {
  if (field.input === 'boolean') return Boolean(value)
  return value === undefined || value === null ? '' : String(value)
}

export function PluginForm({ form, type, store, onDone }) {
  const editor = useEditor()
  const id = useId()
  const fields = formFields(type)
  const [values, setValues] = useState(() => Object.fromEntries(fields.map((f) => [f.name, shown(f, form.block[f.name])])))
  const touched = useRef(new Set())
  const [errors, setErrors] = useState({})
  const first = useRef(null)
  useEffect(() => {
    first.current?.focus()
  }, [])
  const set = (name, value) => {
    touched.current.add(name)
    setValues((current) => ({ ...current, [name]: value }))
  }

  const save = () => {
    const out = { ...form.block }
    const problems = {}
    for (const field of fields) {
      // An untouched field keeps what the block had, exactly (a stored "" stays "", a missing key stays missing).
      if (!form.isNew && !touched.current.has(field.name)) continue
      const raw = values[field.name]
      if (field.input === 'boolean') {
        out[field.name] = Boolean(raw)
        continue
      }
      if (raw === '') {
        if (field.required) problems[field.name] = `${field.label} is required.`
        else delete out[field.name]
        continue
      }
      if (field.input === 'number') {
        const number = Number(raw)
        if (!Number.isFinite(number) || (field.kind === 'integer' && !Number.isInteger(number))) {
          problems[field.name] = field.kind === 'integer' ? 'Enter a whole number.' : 'Enter a number.'
          continue
        }
        out[field.name] = number
      } else {
        out[field.name] = raw
      }
    }
    setErrors(problems)
    if (Object.keys(problems).length) {
      document.getElementById(`${id}-${Object.keys(problems)[0]}`)?.focus()
      return
    }
    if (form.isNew) insertObject(editor, store, out)
    else {
      store.putObject(out)
      editor.send({ type: 'block.set', at: [{ _key: out._key }], props: { v: Date.now() } })
    }
    onDone()
  }

  const title = type.title || type.name
  return (
    <div
      className="pt-object-form"
      role="group"
      aria-label={form.isNew ? `Insert ${title}` : `Edit ${title}`}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onDone()
      }}
    >
      {type.description && <p className="hint">{type.description}</p>}
      {fields.length === 0 && <p className="hint">This block has no fields to fill in here.</p>}
      {fields.map((field, index) => {
        const control = `${id}-${field.name}`
        const error = errors[field.name]
        const common = {
          id: control,
          ref: index === 0 ? first : undefined,
          'aria-invalid': error ? 'true' : undefined,
          'aria-describedby': [field.spec.description && `${control}-hint`, error && `${control}-error`].filter(Boolean).join(' ') || undefined,
        }
        const label = `${field.label}${field.required ? ' (required)' : ''}`
        return (
          <div className="field" key={field.name}>
            {field.input === 'boolean' ? (
              <label className="check" htmlFor={control}>
                <input type="checkbox" {...common} checked={values[field.name]} onChange={(event) => set(field.name, event.target.checked)} /> {label}
              </label>
            ) : (
              <>
                <label htmlFor={control}>{label}</label>
                {field.input === 'select' ? (
                  <select {...common} value={values[field.name]} onChange={(event) => set(field.name, event.target.value)}>
                    {!field.required && <option value="">(none)</option>}
                    {field.spec.enum.map((option) => (
                      <option key={String(option)} value={String(option)}>
                        {String(option)}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    type={field.input === 'number' ? 'number' : 'text'}
                    step={field.kind === 'integer' ? 1 : 'any'}
                    min={field.spec.minimum}
                    max={field.spec.maximum}
                    {...common}
                    value={values[field.name]}
                    onChange={(event) => set(field.name, event.target.value)}
                  />
                )}
              </>
            )}
            {field.spec.description && (
              <p className="hint" id={`${control}-hint`}>
                {field.spec.description}
              </p>
            )}
            {error && (
              <p className="error" id={`${control}-error`}>
                {error}
              </p>
            )}
          </div>
        )
      })}
      <div className="pt-form-actions">
        <button type="button" className="primary" onClick={save}>
          {form.isNew ? `Insert ${title}` : 'Apply'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </div>
  )
}

// The toolbar's Insert menu: a disclosure button and the block types it can insert.
export function InsertMenu({ plugins, onInsert }) {
  const id = useId()
  const [open, setOpen] = useState(false)
  const list = useRef(null)
  useEffect(() => {
    if (open) list.current?.querySelector('button')?.focus()
  }, [open])
  if (!plugins.length) return null
  return (
    <span className="pt-insert">
      <button
        type="button"
        className="pt-button"
        aria-expanded={open ? 'true' : 'false'}
        aria-controls={`${id}-menu`}
        onMouseDown={(event) => event.preventDefault()}
        onClick={() => setOpen(!open)}
      >
        Insert <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <span
          className="pt-insert-menu"
          id={`${id}-menu`}
          ref={list}
          role="group"
          aria-label="Insert a block"
          onKeyDown={(event) => {
            if (event.key === 'Escape') setOpen(false)
          }}
        >
          {plugins.map((type) => (
            <button
              type="button"
              key={type.name}
              title={type.description || undefined}
              onClick={() => {
                setOpen(false)
                onInsert(type)
              }}
            >
              {type.title || type.name}
            </button>
          ))}
        </span>
      )}
    </span>
  )
}
