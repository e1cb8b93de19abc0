/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The API's base URL, fixed at build time; unset means the origin the console is served from. */
  readonly VITE_API_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
