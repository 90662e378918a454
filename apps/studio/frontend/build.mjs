// Builds the Portable Text editor island into apps/studio/static/studio/editor/ (committed; `make run` needs no
// Node) and records what it was built from in build.json, which tests/studio/test_assets.py checks without Node.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const out = join(here, '..', 'static', 'studio', 'editor')
const posix = (path) => path.split(sep).join('/')
const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex')

function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]))
    .sort()
}

mkdirSync(out, { recursive: true })
const result = await esbuild.build({
  entryPoints: { 'portable-text': join(here, 'src', 'main.jsx') },
  outdir: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  // Licences go to THIRD-PARTY-LICENSES.txt beside the bundle; no source map (it would name this machine's paths).
  legalComments: 'none',
  sourcemap: false,
  charset: 'utf8',
  metafile: true,
  absWorkingDir: here,
  logLevel: 'warning',
})

// Every package that ended up in the bundle, with its licence text.
const packages = new Map()
for (const input of Object.keys(result.metafile.inputs)) {
  const match = posix(input).match(/^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//)
  if (!match) continue
  const dir = join(here, match[1] + match[2])
  if (packages.has(match[2])) continue
  const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const licenceFile = readdirSync(dir).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name))
  packages.set(match[2], {
    name: meta.name,
    version: meta.version,
    license: meta.license,
    text: licenceFile ? readFileSync(join(dir, licenceFile), 'utf8').trim() : `${meta.license} (no licence file shipped)`,
  })
}
const notices = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name))
writeFileSync(
  join(out, 'THIRD-PARTY-LICENSES.txt'),
  'Third-party software bundled in portable-text.js and portable-text.css (built by apps/studio/frontend/build.mjs)\n\n' +
    notices.map((p) => `${'='.repeat(78)}\n${p.name} ${p.version} (${p.license})\n${'='.repeat(78)}\n\n${p.text}\n`).join('\n'),
)

const repo = join(here, '..', '..', '..')
const sources = ['package.json', 'package-lock.json', 'build.mjs', ...files(join(here, 'src')).map((f) => posix(relative(here, f)))]
const outputs = readdirSync(out).filter((name) => name !== 'build.json').sort()
const record = {
  comment: 'Written by `make assets`; tests/studio/test_assets.py checks these hashes (paths relative to the two roots).',
  sourceRoot: posix(relative(repo, here)),
  outputRoot: posix(relative(repo, out)),
  sources: Object.fromEntries(sources.map((name) => [name, sha256(join(here, name))])),
  outputs: Object.fromEntries(outputs.map((name) => [name, sha256(join(out, name))])),
  packages: Object.fromEntries(notices.map((p) => [p.name, p.version])),
}
writeFileSync(join(out, 'build.json'), JSON.stringify(record, null, 2) + '\n')
for (const name of outputs) console.log(`${name}\t${readFileSync(join(out, name)).length} bytes`)
if (!existsSync(join(out, 'portable-text.js'))) process.exit(1)
if (process.env.ANALYZE) console.log(await esbuild.analyzeMetafile(result.metafile))
