// Losslessness: the editor edits text blocks; everything else is kept outside it, byte for byte.
//
// Non-text blocks (images, code, tables, plugin blocks, anything unknown) enter the editor as stubs {_type, _key,
// ref} and come back as the exact object kept in `objects`. Text blocks enter as they are; on the way out a block
// the editor has not changed in substance (same style, list, marks and text, whatever the editor normalised:
// merged spans, added empty spans, dropped unused markDefs) is replaced by the original, so merely opening and
// saving a document rewrites nothing. An edited block keeps the original markDefs by key (a link's extra fields).

// The block types the server registers in apps/core/portabletext.py; types found in the value are added to them.
export const SERVER_BLOCK_TYPES = [
  'image', 'code', 'htmlBlock', 'break', 'embed', 'table', 'gallery', 'video', 'audio', 'file', 'button',
  'columns', 'group', 'cover', 'mediaText', 'sectionReference', 'shortcode',
]
// The styles the server's validator accepts (apps/core/portabletext.py STYLES), each with its label.
export const STYLES = [
  ['normal', 'Paragraph'],
  ['h1', 'Heading 1'],
  ['h2', 'Heading 2'],
  ['h3', 'Heading 3'],
  ['h4', 'Heading 4'],
  ['h5', 'Heading 5'],
  ['h6', 'Heading 6'],
  ['blockquote', 'Quote'],
]
export const DECORATORS = ['strong', 'em', 'underline', 'strike-through', 'code', 'sup', 'sub']

const TEXT_KEYS = ['_type', '_key', 'style', 'children', 'markDefs', 'listItem', 'level']

function stableJson(value) {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

function isText(block) {
  return block && block._type === 'block'
}

// What a text block means, ignoring how the editor happens to split or key it.
function meaning(block) {
  const spans = []
  for (const child of block.children || []) {
    if (!child || child._type !== 'span' || !child.text) continue
    const marks = [...(child.marks || [])].sort()
    const last = spans[spans.length - 1]
    if (last && stableJson(last.marks) === stableJson(marks)) last.text += child.text
    else spans.push({ text: child.text, marks })
  }
  const used = new Set(spans.flatMap((span) => span.marks))
  const defs = (block.markDefs || []).filter((def) => used.has(def._key)).map((def) => def._key).sort()
  return stableJson({
    style: block.style || 'normal',
    listItem: block.listItem || null,
    level: block.listItem ? block.level || 1 : null,
    defs,
    spans,
  })
}

const EMPTY = meaning({ style: 'normal', children: [] })

export class Store {
  constructor(value, pluginTypes = []) {
    this.objects = new Map()
    this.originals = new Map()
    this.blockTypes = new Set([...SERVER_BLOCK_TYPES, ...pluginTypes])
    this.annotationTypes = new Set(['link'])
    this.editorValue = this.admit(value, true)
  }

  // Blocks coming in (the field's value, pasted blocks): objects are kept here, the editor gets stubs.
  admit(blocks, original = false) {
    return blocks.map((block) => {
      if (isText(block)) {
        if (original) this.originals.set(block._key, block)
        for (const def of block.markDefs || []) if (def && def._type) this.annotationTypes.add(def._type)
        return JSON.parse(JSON.stringify(block))
      }
      this.objects.set(block._key, block)
      this.blockTypes.add(block._type)
      return { _type: block._type, _key: block._key, ref: block._key }
    })
  }

  object(node) {
    return this.objects.get(node._key) || this.objects.get(node.ref) || null
  }

  // A new or edited object (the image and code forms): the editor keeps the stub, the data lives here.
  putObject(block) {
    this.objects.set(block._key, block)
    return { _type: block._type, _key: block._key, ref: block._key }
  }

  output(editorBlocks) {
    const blocks = editorBlocks || []
    // The editor always shows one block; an empty one that was not in the document means the document is empty.
    const [only] = blocks
    if (blocks.length === 1 && isText(only) && !this.originals.has(only._key) && !only.listItem && meaning(only) === EMPTY) {
      return []
    }
    return blocks.map((block) => (isText(block) ? this.text(block) : this.objectOut(block)))
  }

  objectOut(stub) {
    const kept = this.objects.get(stub._key)
    if (kept) return kept
    const copied = this.objects.get(stub.ref)
    // A copied card (copy and paste inside the editor) gets the editor's new key.
    if (copied) return { ...copied, _key: stub._key }
    const { ref, ...rest } = stub
    return rest
  }

  text(block) {
    const original = this.originals.get(block._key)
    if (original && meaning(original) === meaning(block)) return original
    const knownDefs = new Map((original?.markDefs || []).map((def) => [def._key, def]))
    const children = (block.children || [])
      .filter((child) => child && child._type === 'span')
      .map((child) => ({ _type: 'span', _key: child._key, text: child.text || '', marks: [...(child.marks || [])] }))
    const used = new Set(children.flatMap((child) => child.marks))
    const out = {
      _type: 'block',
      _key: block._key,
      style: block.style || 'normal',
      markDefs: (block.markDefs || [])
        .filter((def) => used.has(def._key))
        .map((def) => knownDefs.get(def._key) || def),
      children,
    }
    if (block.listItem) {
      out.listItem = block.listItem
      out.level = block.level || 1
    }
    for (const key of Object.keys(out)) if (!TEXT_KEYS.includes(key)) delete out[key]
    return out
  }
}

export function safeHref(raw) {
  const href = (raw || '').trim()
  if (!href) return null
  if (/^(\/(?!\/)|#|\?)/.test(href)) return href
  try {
    const url = new URL(href)
    if (['http:', 'https:', 'mailto:', 'tel:'].includes(url.protocol)) return href
  } catch {
    return null
  }
  return null
}
