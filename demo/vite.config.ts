import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The demo imports thinkwire from ../src, so it builds without building the package first.
// `npm run build:demo` writes demo/dist, which the relay Worker serves as static assets; during
// `vite demo` development, /v1 goes to a relay started with `npm start` (port 8787).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  server: { proxy: { '/v1': 'http://127.0.0.1:8787' } },
})
