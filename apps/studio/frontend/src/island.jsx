import {
  defineAnnotation,
  defineBlockObject,
  defineDecorator,
  defineSchema,
  defineTextBlock,
  EditorProvider,
  PortableTextEditable,
  useEditor,
} from '@portabletext/editor'
import { EventListenerPlugin, NodePlugin } from '@portabletext/editor/plugins'
import { MarkdownShortcutsPlugin } from '@portabletext/plugin-markdown-shortcuts'
import { useEffect, useMemo, useRef, useState } from 'react'
import { DECORATORS, safeHref, STYLES } from './lossless.js'
import { ObjectCard, ObjectForm } from './objects.jsx'
import { newBlock, PluginForm } from './plugins.jsx'
import { fromHtml } from './paste.js'
import { Toolbar } from './toolbar.jsx'

const TAGS = { h1: 'h1', h2: 'h2', h3: 'h3', h4: 'h4', h5: 'h5', h6: 'h6', blockquote: 'blockquote' }
const MARK_TAGS = { strong: 'strong', em: 'em', underline: 'u', 'strike-through': 's', code: 'code', sup: 'sup', sub: 'sub' }

function buildNodes(store, plugins, openForm) {
  const textBlock = defineTextBlock({
    type: 'block',
    render: ({ attributes, children, node }) => {
      if (node.listItem) {
        const level = Math.min(node.level || 1, 8)
        return (
          <div {...attributes} className={`pt-li pt-li-${node.listItem} pt-level-${level}`}>
            {children}
          </div>
        )
      }
      const Tag = TAGS[node.style] || 'p'
      return (
        <Tag {...attributes} className={`pt-block pt-${node.style || 'normal'}`}>
          {children}
        </Tag>
      )
    },
  })
  const decorators = DECORATORS.map((name) => {
    const Tag = MARK_TAGS[name]
    return defineDecorator({ type: name, render: ({ children }) => <Tag>{children}</Tag> })
  })
  const link = defineAnnotation({
    type: 'link',
    render: ({ annotation, children }) => (
      <a className="pt-link" href={annotation.href} title={annotation.href}>
        {children}
      </a>
    ),
  })
  const otherAnnotations = [...store.annotationTypes]
    .filter((name) => name !== 'link')
    .map((name) =>
      defineAnnotation({
        type: name,
        render: ({ children }) => (
          <span className="pt-annotation" title={`Kept as it is: ${name}`}>
            {children}
          </span>
        ),
      }),
    )
  const objects = [...store.blockTypes].map((name) =>
    defineBlockObject({
      type: name,
      render: ({ attributes, children, node, selected }) => (
        <div {...attributes} className={`pt-object${selected ? ' pt-selected' : ''}`}>
          {children}
          <ObjectCard block={store.object(node) || node} plugin={plugins.find((type) => type.name === node._type)} onEdit={openForm} />
        </div>
      ),
    }),
  )
  return [textBlock, ...decorators, link, ...otherAnnotations, ...objects]
}

function buildSchema(store) {
  return defineSchema({
    styles: STYLES.map(([name, title]) => ({ name, title })),
    decorators: DECORATORS.map((name) => ({ name })),
    annotations: [...store.annotationTypes].map((name) =>
      name === 'link'
        ? { name, fields: ['href', 'referenceCollection', 'referenceId'].map((field) => ({ name: field, type: 'string' })) }
        : { name },
    ),
    lists: [{ name: 'bullet' }, { name: 'number' }],
    inlineObjects: [],
    blockObjects: [...store.blockTypes].map((name) => ({ name, fields: [{ name: 'ref', type: 'string' }, { name: 'v', type: 'number' }] })),
  })
}

// Keeps the textarea in step with the editor: once when the editor is ready (the value as the editor holds it,
// which is what the round-trip test checks), on every change, and right before the form is submitted.
function Sync({ textarea, write }) {
  const editor = useEditor()
  const ready = useRef(false)
  // For scripts on the page (and tests): the editor behind this textarea.
  textarea.portableTextEditor = editor
  useEffect(() => {
    const form = textarea.form
    if (!form) return undefined
    const flush = () => write(editor.getSnapshot().context.value, true)
    form.addEventListener('submit', flush, true)
    form.addEventListener('formdata', flush, true)
    return () => {
      form.removeEventListener('submit', flush, true)
      form.removeEventListener('formdata', flush, true)
    }
  }, [editor, textarea, write])
  return (
    <EventListenerPlugin
      on={(event) => {
        if (event.type === 'ready') {
          ready.current = true
          write(editor.getSnapshot().context.value, false)
          textarea.dataset.portableTextState = 'ready'
        } else if (event.type === 'mutation' && ready.current) {
          write(event.value, true)
        }
      }}
    />
  )
}

// Markdown as people type it: "## " a heading, "> " a quote, "- " and "1. " lists, **bold**, *italic*, `code`,
// ~~strike~~, [text](address) a link (checked like the link form's). No "---" rule: a rule is a kept object, which
// the toolbar inserts.
const pick = (list, name) => list.find((item) => item.name === name)?.name
function Markdown() {
  return (
    <MarkdownShortcutsPlugin
      boldDecorator={({ context }) => pick(context.schema.decorators, 'strong')}
      italicDecorator={({ context }) => pick(context.schema.decorators, 'em')}
      codeDecorator={({ context }) => pick(context.schema.decorators, 'code')}
      strikeThroughDecorator={({ context }) => pick(context.schema.decorators, 'strike-through')}
      defaultStyle={({ context }) => pick(context.schema.styles, 'normal')}
      headingStyle={({ context, props }) => pick(context.schema.styles, `h${props.level}`)}
      blockquoteStyle={({ context }) => pick(context.schema.styles, 'blockquote')}
      unorderedList={({ context }) => pick(context.schema.lists, 'bullet')}
      orderedList={({ context }) => pick(context.schema.lists, 'number')}
      linkObject={({ props }) => {
        const href = safeHref(props.href)
        return href ? { _type: 'link', href } : undefined
      }}
    />
  )
}

export function Island({ store, plugins, collections, textarea, write, label, labelledBy, describedBy }) {
  const [form, setForm] = useState(null) // {block, isNew}
  const nodes = useMemo(() => buildNodes(store, plugins, (block) => setForm({ block, isNew: false })), [store, plugins])
  const formType = form && plugins.find((type) => type.name === form.block._type)
  const schemaDefinition = useMemo(() => buildSchema(store), [store])
  const onPaste = ({ event }) => {
    const html = event.clipboardData?.getData('text/html')
    if (!html) return undefined
    return fromHtml(html, textarea).then(
      (blocks) => ({ insert: store.admit(blocks.filter((block) => block._type === 'block' || store.blockTypes.has(block._type))) }),
      () => undefined,
    )
  }
  return (
    <EditorProvider initialConfig={{ schemaDefinition, initialValue: store.editorValue }}>
      <Sync textarea={textarea} write={write} />
      <NodePlugin nodes={nodes} />
      <Markdown />
      <Toolbar
        store={store}
        label={label}
        labelledBy={labelledBy}
        plugins={plugins}
        collections={collections}
        currentCollection={textarea.dataset.collection}
        onInsertObject={(block) => setForm({ block, isNew: true })}
        onInsertPlugin={(type) => setForm({ block: newBlock(type), isNew: true })}
      />
      {form && formType && <PluginForm key={form.block._key || 'new'} form={form} type={formType} store={store} onDone={() => setForm(null)} />}
      {form && !formType && <ObjectForm form={form} store={store} onDone={() => setForm(null)} />}
      <PortableTextEditable
        className="pt-editable"
        aria-label={labelledBy ? undefined : label}
        aria-labelledby={labelledBy || undefined}
        aria-describedby={describedBy || undefined}
        aria-multiline="true"
        role="textbox"
        hotkeys={{ marks: { 'mod+b': 'strong', 'mod+i': 'em', 'mod+u': 'underline', "mod+'": 'code' } }}
        onPaste={onPaste}
      />
    </EditorProvider>
  )
}

