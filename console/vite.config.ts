import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The console is served by the API server at /console/, so every asset URL is absolute under that base.
 * The API it talks to is read from `VITE_API_URL` at build time (Vite exposes VITE_* variables from the environment
 * and from .env files as `import.meta.env`); unset, the console calls the origin it was loaded from.
 */
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // The API reference screen's renderer (Swagger UI, ~1.4 MB) is a chunk of its own, loaded only on that screen
    // (React.lazy); every other chunk stays far below this.
    chunkSizeWarningLimit: 1600,
  },
});
