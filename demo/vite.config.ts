import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { readDevRelay } from '../scripts/dev-relay.ts'

// The demo imports thinkwire from ../src, so it builds without building the package first.
// `npm run build:demo` writes demo/dist, which the relay Worker serves as static assets; during
// `vite demo` development, /v1 goes to the relay of `npm start`, on the port it was given
// (`npm start -- --port 9123`; it records the address, 8787 by default).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  // `secure: false`: a relay on `--local-protocol https` has wrangler's self-signed certificate.
  server: { proxy: { '/v1': { target: readDevRelay(), secure: false } } },
})
