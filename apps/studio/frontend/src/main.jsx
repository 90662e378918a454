// The studio's Portable Text editor island: every <textarea data-portable-text> becomes a rich-text editor whose
// value is written back into the textarea as JSON, so the page's ordinary form POST saves it.
import { createRoot } from 'react-dom/client'
import { Island } from './island.jsx'
import { Store } from './lossless.js'
import { readCollections } from './links.jsx'
import { readPlugins } from './plugins.jsx'
import './editor.css'

function labelOf(textarea) {
  const label = textarea.id && document.querySelector(`label[for="${CSS.escape(textarea.id)}"]`)
  if (label) {
    if (!label.id) label.id = `${textarea.id}-label`
    return { labelledBy: label.id }
  }
  return { label: textarea.getAttribute('aria-label') || textarea.dataset.portableText || 'Rich text' }
}

function mount(textarea) {
  if (textarea.dataset.portableTextState) return
  let value
  try {
    value = JSON.parse(textarea.value.trim() || '[]')
  } catch {
    value = null
  }
  if (!Array.isArray(value) || value.some((block) => !block || typeof block !== 'object' || !block._key)) {
    // Not a document the editor can hold losslessly: the JSON stays editable as it is.
    textarea.dataset.portableTextState = 'unsupported'
    return
  }
  const plugins = readPlugins(textarea)
  const store = new Store(value, plugins.map((type) => type.name))
  const host = document.createElement('div')
  host.className = 'pt-island'
  textarea.after(host)
  textarea.hidden = true
  textarea.dataset.portableTextState = 'mounting'
  const write = (blocks, changed) => {
    const json = JSON.stringify(store.output(blocks))
    if (json === textarea.value) return
    textarea.value = json
    if (changed) textarea.dispatchEvent(new Event('input', { bubbles: true }))
  }
  createRoot(host).render(
    <Island store={store} plugins={plugins} collections={readCollections(textarea)} textarea={textarea} write={write} describedBy={textarea.getAttribute('aria-describedby')} {...labelOf(textarea)} />,
  )
}

function mountAll() {
  for (const textarea of document.querySelectorAll('textarea[data-portable-text]')) mount(textarea)
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountAll)
else mountAll()
