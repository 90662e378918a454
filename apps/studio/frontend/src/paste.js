// Pasted HTML (a web page, Google Docs, Word) becomes Portable Text on the server, with the same converter the
// importer uses, so what the editor inserts is what the API would accept.
const ENDPOINT = '/_cms/api/portable-text/from-html'

function csrfToken(textarea) {
  const field = textarea.form?.querySelector('input[name="csrfmiddlewaretoken"]')
  if (field) return field.value
  const cookie = document.cookie.split('; ').find((part) => part.startsWith('csrftoken='))
  return cookie ? decodeURIComponent(cookie.slice('csrftoken='.length)) : ''
}

export async function fromHtml(html, textarea) {
  const response = await fetch(ENDPOINT, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRFToken': csrfToken(textarea) },
    body: JSON.stringify({ html }),
  })
  if (!response.ok) throw new Error(`paste conversion failed: ${response.status}`)
  const body = await response.json()
  return Array.isArray(body.data) ? body.data : []
}
