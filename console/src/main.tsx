// First, so that the shared sheets precede every screen's own in the cascade.
import './styles/index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { isConfirmPage } from './screens/Confirm/confirmLink';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// A mail's link opens /auth/confirm, which the server answers with this same index.html. That page loads none of the
// console (so no stored session is read or refreshed): nothing is asked of the API until the visitor clicks.
const start = isConfirmPage(window.location.pathname)
  ? import('./screens/Confirm/ConfirmRoot').then((module) => module.startConfirmPage)
  : import('./ConsoleRoot').then((module) => module.startConsole);

start.then(
  (startPage) => createRoot(root).render(<StrictMode>{startPage()}</StrictMode>),
  () => {
    root.textContent = 'The page failed to load. Check the connection and reload it.';
  },
);
