import { useEditor, useEditorSelector } from '@portabletext/editor'
import {
  getActiveStyle,
  getFocusTextBlock,
  getSelectedTextBlocks,
  isActiveAnnotation,
  isActiveDecorator,
  isActiveListItem,
} from '@portabletext/editor/selectors'
import { useId, useRef, useState } from 'react'
import { safeHref, STYLES } from './lossless.js'
import { insertObject } from './objects.jsx'
import { EntrySearch, entryLink } from './links.jsx'
import { InsertMenu } from './plugins.jsx'

const MARKS = [
  ['strong', 'Bold', 'B', 'Ctrl+B'],
  ['em', 'Italic', 'I', 'Ctrl+I'],
  ['underline', 'Underline', 'U', 'Ctrl+U'],
  ['strike-through', 'Strike-through', 'S', ''],
  ['code', 'Inline code', '</>', "Ctrl+'"],
]
const MAX_LEVEL = 8

function Button({ label, shortcut, pressed, onPress, children, disabled }) {
  return (
    <button
      type="button"
      className="pt-button"
      aria-label={label}
      title={shortcut ? `${label} (${shortcut})` : label}
      aria-pressed={pressed === undefined ? undefined : pressed ? 'true' : 'false'}
      aria-keyshortcuts={shortcut ? shortcut.replace('Ctrl', 'Control') : undefined}
      disabled={disabled}
      // Keep the editor's selection: a mouse press on a button would otherwise move focus away first.
      onMouseDown={(event) => event.preventDefault()}
      onClick={onPress}
    >
      {children}
    </button>
  )
}

function MarkButton({ editor, name, label, glyph, shortcut }) {
  const active = useEditorSelector(editor, isActiveDecorator(name))
  return (
    <Button
      label={label}
      shortcut={shortcut}
      pressed={active}
      onPress={() => {
        editor.send({ type: 'decorator.toggle', decorator: name })
        editor.send({ type: 'focus' })
      }}
    >
      <span aria-hidden="true" className={`pt-glyph pt-glyph-${name}`}>
        {glyph}
      </span>
    </Button>
  )
}

function ListButton({ editor, name, label, glyph }) {
  const active = useEditorSelector(editor, isActiveListItem(name))
  return (
    <Button
      label={label}
      pressed={active}
      onPress={() => {
        editor.send({ type: 'list item.toggle', listItem: name })
        editor.send({ type: 'focus' })
      }}
    >
      <span aria-hidden="true">{glyph}</span>
    </Button>
  )
}

function indent(editor, delta) {
  const blocks = getSelectedTextBlocks(editor.getSnapshot())
  for (const { node, path } of blocks) {
    if (!node.listItem) continue
    const level = Math.max(1, Math.min(MAX_LEVEL, (node.level || 1) + delta))
    if (level !== (node.level || 1)) editor.send({ type: 'block.set', at: path, props: { level } })
  }
  editor.send({ type: 'focus' })
}

function LinkForm({ editor, linked, at, onClose, collections, currentCollection }) {
  const id = useId()
  const [href, setHref] = useState('')
  const [error, setError] = useState('')
  const [toEntry, setToEntry] = useState(false)
  const input = useRef(null)
  const link = (value) => {
    // The selection as it was when the form opened: focus has moved to the address field since.
    if (at) editor.send({ type: 'select', at })
    if (linked) editor.send({ type: 'annotation.remove', annotation: { name: 'link' }, at: at || undefined })
    editor.send({ type: 'annotation.add', annotation: { name: 'link', value }, at: at || undefined })
    editor.send({ type: 'focus' })
    onClose()
  }
  const apply = (event) => {
    event.preventDefault()
    const checked = safeHref(href)
    if (!checked) {
      setError('Enter a web address (https://…), a mail address (mailto:…) or a path on this site (/…).')
      input.current?.focus()
      return
    }
    link({ href: checked })
  }
  if (toEntry) {
    return (
      <div className="pt-inline-form pt-link-entry">
        <EntrySearch
          collections={collections}
          current={currentCollection}
          onChoose={(collection, entry) => link(entryLink(collection, entry))}
          onCancel={onClose}
        />
        <button type="button" onClick={() => setToEntry(false)}>
          Link to a web address
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    )
  }
  return (
    // Not a <form>: the island lives inside the entry's form, and forms cannot nest.
    <div className="pt-inline-form" role="group" aria-label="Link">
      <label htmlFor={`${id}-href`}>Link address</label>
      <input
        id={`${id}-href`}
        ref={input}
        type="url"
        autoFocus
        value={href}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => setHref(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') apply(event)
          if (event.key === 'Escape') onClose()
        }}
      />
      <button type="button" className="primary" onClick={apply}>
        Apply link
      </button>
      {collections.length > 0 && (
        <button type="button" onClick={() => setToEntry(true)}>
          Link to an entry
        </button>
      )}
      <button type="button" onClick={onClose}>
        Cancel
      </button>
      {error && (
        <p className="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  )
}

export function Toolbar({ store, plugins, collections, currentCollection, label, labelledBy, onInsertObject, onInsertPlugin }) {
  const editor = useEditor()
  const id = useId()
  const style = useEditorSelector(editor, getActiveStyle) || 'normal'
  const inText = useEditorSelector(editor, (snapshot) => Boolean(getFocusTextBlock(snapshot)))
  const linked = useEditorSelector(editor, isActiveAnnotation('link'))
  const [linking, setLinking] = useState(null)
  const send = (event) => {
    editor.send(event)
    editor.send({ type: 'focus' })
  }
  const name = labelledBy ? undefined : `${label}: formatting`
  return (
    <div className="pt-toolbar-wrap">
      <div
        className="pt-toolbar"
        role="toolbar"
        aria-label={name}
        aria-labelledby={labelledBy ? labelledBy : undefined}
      >
        <label className="visually-hidden" htmlFor={`${id}-style`}>
          Text style
        </label>
        <select
          id={`${id}-style`}
          className="pt-style"
          value={STYLES.some(([value]) => value === style) ? style : 'normal'}
          disabled={!inText}
          onChange={(event) => send({ type: 'style.add', style: event.target.value })}
        >
          {STYLES.map(([value, title]) => (
            <option key={value} value={value}>
              {title}
            </option>
          ))}
        </select>
        <span className="pt-sep" aria-hidden="true" />
        {MARKS.map(([mark, markLabel, glyph, shortcut]) => (
          <MarkButton key={mark} editor={editor} name={mark} label={markLabel} glyph={glyph} shortcut={shortcut} />
        ))}
        <Button
          label={linked ? 'Remove link' : 'Link'}
          pressed={linked}
          onPress={() => {
            if (linked) send({ type: 'annotation.remove', annotation: { name: 'link' } })
            else setLinking({ at: editor.getSnapshot().context.selection })
          }}
        >
          <span aria-hidden="true" className="pt-glyph-link">Link</span>
        </Button>
        <span className="pt-sep" aria-hidden="true" />
        <ListButton editor={editor} name="bullet" label="Bulleted list" glyph="•" />
        <ListButton editor={editor} name="number" label="Numbered list" glyph="1." />
        <Button label="Indent list item" onPress={() => indent(editor, 1)}>
          <span aria-hidden="true">→</span>
        </Button>
        <Button label="Outdent list item" onPress={() => indent(editor, -1)}>
          <span aria-hidden="true">←</span>
        </Button>
        <span className="pt-sep" aria-hidden="true" />
        <Button label="Insert code block" onPress={() => onInsertObject({ _type: 'code', code: '' })}>
          <span aria-hidden="true">Code</span>
        </Button>
        <Button label="Insert image" onPress={() => onInsertObject({ _type: 'image' })}>
          <span aria-hidden="true">Image</span>
        </Button>
        <Button
          label="Insert horizontal rule"
          onPress={() => insertObject(editor, store, { _type: 'break', style: 'separator' })}
        >
          <span aria-hidden="true">―</span>
        </Button>
        <InsertMenu plugins={plugins} onInsert={onInsertPlugin} />
        <span className="pt-sep" aria-hidden="true" />
        <Button label="Undo" shortcut="Ctrl+Z" onPress={() => send({ type: 'history.undo' })}>
          <span aria-hidden="true">↶</span>
        </Button>
        <Button label="Redo" shortcut="Ctrl+Y" onPress={() => send({ type: 'history.redo' })}>
          <span aria-hidden="true">↷</span>
        </Button>
      </div>
      {linking && (
        <LinkForm
          editor={editor}
          linked={linked}
          at={linking.at}
          collections={collections}
          currentCollection={currentCollection}
          onClose={() => {
            setLinking(null)
            editor.send({ type: 'focus' })
          }}
        />
      )}
    </div>
  )
}
